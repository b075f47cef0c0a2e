// Whether a client may say Hello under the origin it claims (docs/SECURITY.md,
// "Origins"). An origin (host, pid, process start, instance) names a client's
// events everywhere: a local client's must be a process the kernel vouches for,
// so that no one publishes as another's process or takes over its session.
//
//   if (Status s = checkOrigin(hello, sender, readLocalProcess); !s.ok()) ...
//
// Threading: pure apart from the lookup, which reads /proc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "agent/security/admission.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// What /proc says of a process, seen from the agent's pid namespace.
struct LocalProcess {
  uint32_t uid = 0;                // real uid
  uint64_t start_ns = 0;           // as client/origin.h computes it
  std::vector<uint32_t> ns_pids;   // its pid in each pid namespace, the agent's first (NSpid)
};
using ProcessLookup = std::function<std::optional<LocalProcess>(uint32_t pid)>;

// /proc/<pid>/status and /proc/<pid>/stat; nullopt when the process is gone.
std::optional<LocalProcess> readLocalProcess(uint32_t pid);

// OK, or why `sender` may not say Hello as `hello` does:
// - instance bit 31 belongs to the agent's last wills (kInvalidArgument);
// - a local client's origin must be the connecting process itself (its pid in
//   any of its pid namespaces, and its start time), or a live process of the
//   same uid it speaks for (root may speak for any) (kPermissionDenied). Where
//   /proc hides the connecting process from the agent (hidepid=,
//   ProtectProc=invisible), its SO_PEERCRED pid alone is checked. The host is
//   the client's to name (a container may have a hostname of its own). A remote client's origin is not checked here: its
//   events count under a key scoped by the agent it attached to (sequenceKey).
Status checkOrigin(const proto::Hello& hello, const Sender& sender, const ProcessLookup& lookup);

}  // namespace ftb::agent
