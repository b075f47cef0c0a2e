// Who may send the agent what: one table with a row per message type the
// agent serves, consulted by Agent::dispatch before any handler runs, and the
// policy checks the rows name (docs/SECURITY.md, "Who may do what").
//
//   Admission admission(policy);
//   admission.setAgentsCurveKey(key);       // Curve on: agents hold the cluster key
//   Sender who = ...;                       // from the frame's properties
//   if (auto v = admission.admit(envelope.body_case(), who); !v.ok()) refuse(v);
//
// The subscribe check (maySee) is the ONE answer to "may this principal see
// events of this namespace": live delivery, the replay at subscribe time, the
// control API's history query and eventsLost notices all ask it.
// Threading: the agent's event-loop thread only. Holds a reference to the
// agent's NamespacePolicy, which a reload replaces in place.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agent/security/namespace_policy.h"
#include "agent/security/peer_credentials.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// What the agent knows about the sender of one frame.
struct Sender {
  std::optional<PeerCredentials> local;  // set for the IPC socket: SO_PEERCRED, kernel-verified
  std::string address;                   // TCP: the peer's IP address ("" for IPC)
  std::string curve_key;                 // TCP with Curve on: the key ZAP admitted (Z85)
  std::optional<uint32_t> curve_uid;     // the uid the authorized keys map curve_key to
  bool has_session = false;              // this routing id said Hello and holds a session

  bool isLocal() const { return local.has_value(); }
  bool isCurve() const { return !local && !curve_key.empty(); }
};

// Kinds of peer a row admits; a sender may be of several kinds at once
// (a TCP peer without a session, with Curve off, is both kRemote and kAgentLink).
enum PeerKind : uint8_t {
  kLocalClient = 1 << 0,   // the IPC socket (uid known)
  kRemoteClient = 1 << 1,  // TCP, anonymous (Curve off)
  kCurveClient = 1 << 2,   // TCP, key authorized by the ZAP handler (Curve on)
  kAgentLink = 1 << 3,     // TCP, no client session, and the agents' key (or the tree admits anyone)
};
inline constexpr uint8_t kAnyClient = kLocalClient | kRemoteClient | kCurveClient;

// The policy check a row's handler applies once the sender is admitted.
enum class Check {
  kNone,
  kOriginOwner,      // Hello: resuming a known origin needs the same verified identity (mayResume)
  kPublishPolicy,    // Publish: the session's namespace, by the publish rules
  kSubscribePolicy,  // Subscribe replay, HistoryQuery: every event through maySee
};

struct AdmissionRule {
  proto::Envelope::BodyCase type;
  const char* name;  // as in error messages and docs
  uint8_t senders;   // PeerKind bits
  bool needs_session;
  Check check;
};

// Who first said Hello with a publisher key (its origin), kept while the key is
// known to the agent, so that only the same identity may resume it.
struct OriginOwner {
  std::optional<uint32_t> uid;  // local owner: its kernel-verified uid
  std::string curve_key;        // remote owner with Curve on
  std::string address;          // remote owner without Curve: its IP address

  static OriginOwner of(const Sender& sender);
  std::string describe() const;  // "uid 0", "Curve key ...", "remote 10.0.0.7"
};

class Admission {
 public:
  // No peer is an agent link until one of the setters below says how agents
  // prove it (docs/SECURITY.md): a fresh install has no cluster key.
  explicit Admission(const NamespacePolicy& policy) : policy_(policy) {}

  // Curve on (before the agent serves): agent links hold the key pair agents
  // share, whose public half is `key`.
  void setAgentsCurveKey(std::string key) {
    agents_curve_key_ = std::move(key);
    any_tree_peer_ = false;
  }
  // tree-authentication = insecure-none without Curve: any TCP peer without a
  // client session may be an agent link (labs only).
  void admitAnyTreePeer() { any_tree_peer_ = agents_curve_key_.empty(); }

  // Every row, one per message type the agent serves.
  static std::span<const AdmissionRule> table();
  // The row for `type`, or nullptr for a type the agent does not serve.
  static const AdmissionRule* rule(proto::Envelope::BodyCase type);

  // The PeerKind bits `sender` has.
  uint8_t kindsOf(const Sender& sender) const;

  // Whether `sender` may send a message of `type`: OK, or kNotFound (a type
  // the agent does not serve), kPermissionDenied (a peer of the wrong kind),
  // kUnauthenticated (needs a session: say Hello first); the message says which.
  Status admit(proto::Envelope::BodyCase type, const Sender& sender) const;

  // The subscribe check: may `who` see events of `event_space`?
  bool maySee(const Principal& who, const std::string& event_space) const;
  // Whether maySee is true for everyone and every namespace (a fast path).
  bool everyoneSeesEverything() const;

  // The Hello check: may `claimant` take over the origin `owner` holds? The
  // same kernel-verified uid for a local owner; for a remote one the same Curve
  // key, or (Curve off) the same IP address. kPermissionDenied otherwise.
  static Status mayResume(const OriginOwner& owner, const Sender& claimant);

  // Who the namespace policy sees in `sender` (groups are not looked up here).
  Principal principalOf(const Sender& sender) const;

 private:
  const NamespacePolicy& policy_;
  std::string agents_curve_key_;
  bool any_tree_peer_ = false;
};

// Where the agent publishes its own events (tree changes, lost clients and events).
inline constexpr char kAgentEventSpace[] = "FTB.AGENT";

// The namespace an agent event tells of, "" if none: an event of FTB.AGENT
// tagged `space` (FTB_CLIENT_LOST names a client of that namespace,
// FTB_AGENT_EVENTS_LOST counts its lost events). Such an event reaches only who
// may also see that namespace (docs/SECURITY.md, "Need to know"), on every
// agent it reaches: the rule reads the event, not where it came from.
std::string_view namespaceToldOf(const proto::Event& event);

}  // namespace ftb::agent
