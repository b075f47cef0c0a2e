#include "agent/security/origin_check.h"

#include <fstream>
#include <sstream>
#include <string>

#include "agent/security/last_will.h"
#include "client/origin.h"

namespace ftb::agent {

std::optional<LocalProcess> readLocalProcess(uint32_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream status(dir + "/status");
  if (!status) return std::nullopt;
  LocalProcess p;
  bool have_uid = false;
  for (std::string line; std::getline(status, line);) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "Uid:") {
      have_uid = static_cast<bool>(fields >> p.uid);
    } else if (key == "NSpid:") {
      for (uint32_t n; fields >> n;) p.ns_pids.push_back(n);
    }
  }
  std::optional<uint64_t> start = processStartNs(dir);
  if (!have_uid || !start) return std::nullopt;
  p.start_ns = *start;
  if (p.ns_pids.empty()) p.ns_pids.push_back(pid);  // kernels before 4.1 have no NSpid
  return p;
}

namespace {

bool isPidOf(const LocalProcess& p, uint32_t pid) {
  for (uint32_t n : p.ns_pids) {
    if (n == pid) return true;
  }
  return false;
}

}  // namespace

Status checkOrigin(const proto::Hello& hello, const Sender& sender, const ProcessLookup& lookup) {
  if ((hello.client_instance() & kWillInstanceBit) != 0) {
    return Status(Code::kInvalidArgument,
                  "client_instance " + std::to_string(hello.client_instance()) +
                      " has bit 31 set, which the agent reserves for last wills");
  }
  if (!sender.local) return {};
  // The host is not compared: a client in a container with a UTS namespace of
  // its own names its container. The pid and start time bind the origin to a
  // process, which no other process can be, here or on another node.
  const proto::Origin& o = hello.origin();
  const PeerCredentials& peer = *sender.local;
  const std::optional<LocalProcess> self = lookup(peer.pid);
  if (self && isPidOf(*self, o.pid()) && self->start_ns == o.process_start_ns()) return {};
  // /proc may not show the agent another user's process (hidepid=, or
  // ProtectProc=invisible as the packaged unit runs it): then what the kernel
  // says of the connection, its pid, is what binds the origin.
  if (!self && o.pid() == peer.pid) return {};
  // Speaking for another process of the same user (root: any), which must be
  // alive and be the process the origin names.
  if (o.pid() != peer.pid) {
    const std::optional<LocalProcess> other = lookup(o.pid());
    if (other && (peer.uid == 0 || other->uid == peer.uid) && other->start_ns == o.process_start_ns()) {
      return {};
    }
  }
  return Status(Code::kPermissionDenied,
                "Hello refused: origin pid " + std::to_string(o.pid()) + " started at " +
                    std::to_string(o.process_start_ns()) +
                    " ns is neither the connecting process (pid " + std::to_string(peer.pid) +
                    ") nor a live process of uid " + std::to_string(peer.uid) +
                    " (docs/SECURITY.md, Origins)");
}

}  // namespace ftb::agent
