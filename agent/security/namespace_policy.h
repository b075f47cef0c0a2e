// Who may publish into and subscribe to which namespaces (docs/SECURITY.md).
//
//   # action   namespace   who ...
//   publish    FTB.JL.*    uid=0 self
//   publish    *           *
//   subscribe  *           *
//
// Rules are tried in order; the first whose action and namespace pattern match
// decides: allowed when the client matches one of its principals, refused
// otherwise. No matching rule: refused. Patterns: `*` (every namespace),
// `FTB.JL.*` (FTB.JL and everything below it), `FTB.AGENT*` (every namespace
// whose name starts so), or one exact namespace.
// Principals: `*` anyone; `uid=N`, `user=NAME`, `gid=N`, `group=NAME` (primary
// or supplementary group) for local clients and for TCP clients whose Curve
// key the authorized keys map to a uid; `self` local clients running as
// the agent's own user; `local` any local (IPC) client; `remote` any TCP
// client; `curve` TCP clients authenticated with an authorized Curve key.
// Threading: immutable after parse(); used by the agent's event-loop thread.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "agent/security/peer_credentials.h"
#include "client/status.h"

namespace ftb::agent {

// Who a client is, as far as the agent can tell.
struct Principal {
  std::optional<PeerCredentials> peer;  // set for local clients (kernel-verified)
  std::optional<uint32_t> curve_uid;    // a TCP client whose Curve key the authorized keys map to a uid
  std::vector<gid_t> groups;            // groups of uid() (if looked up)
  bool curve_authenticated = false;     // a TCP client whose Curve key is authorized

  // The verified uid: the kernel's for a local client, its key's for a mapped Curve client.
  std::optional<uint32_t> uid() const { return peer ? std::optional<uint32_t>(peer->uid) : curve_uid; }
  // For messages: "uid 1000", "uid 1000 (Curve key)", "a remote client".
  std::string describe() const;
};

class NamespacePolicy {
 public:
  enum class Action { kPublish, kSubscribe };

  // The embedded default: only root and the agent's own user publish into
  // FTB.JL.*, FTB.AGENT* (and, with an authorized Curve key, FTB.IPMI.* and
  // FTB.IB.*); every other namespace is open to everyone, and everyone may
  // subscribe to everything.
  static NamespacePolicy embeddedDefault();
  static const char* embeddedDefaultText();

  // Parses policy text; kInvalidArgument names the line and what is wrong.
  // `source` names the text in messages (a file name). Users and groups are
  // resolved now: an unknown name is an error.
  static Result<NamespacePolicy> parse(const std::string& text, const std::string& source);
  // Reads and parses a file; "" gives the embedded default.
  static Result<NamespacePolicy> load(const std::string& path);

  bool allows(Action action, const std::string& event_space, const Principal& who) const;
  // Whether the answer is "yes" for every client for this action (a fast path).
  bool openToAll(Action action) const;
  // Whether some rule names a group (so supplementary groups must be looked up).
  bool needsGroups() const { return needs_groups_; }

  // A short description of who may, for error messages ("uid=0 self").
  std::string whoMay(Action action, const std::string& event_space) const;

 private:
  struct Who {
    enum class Kind { kAnyone, kUid, kGid, kSelf, kLocal, kRemote, kCurve } kind;
    uint32_t id = 0;
    std::string text;  // as written
  };
  struct Rule {
    Action action;
    std::string pattern;
    std::vector<Who> who;
  };
  const Rule* find(Action action, const std::string& event_space) const;
  static bool matches(const std::string& pattern, const std::string& event_space);
  static bool matches(const Who& who, const Principal& p);

  std::vector<Rule> rules_;
  bool needs_groups_ = false;
};

// The supplementary groups of `uid` (empty when the user is unknown). May block
// on the name service: call only when NamespacePolicy::needsGroups().
std::vector<gid_t> groupsOf(uint32_t uid);

}  // namespace ftb::agent
