// Messages between agents of the tree. Plain structs: the simulator passes them
// as they are, the agent encodes them as proto/tree.proto (agent/transport/tree_wire.cc).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "agent/tree/tree_types.h"

namespace ftb::tree {

// What the sender's side of a link wants: subscription filters, of which only
// the event_space part is used for routing between agents.
using Interest = std::vector<std::string>;  // sorted, unique
// What the sender's side has seen of each publisher its interest covers: the
// highest sequence and the gaps below it it still lacks. The other side
// replays what lies beyond or in a gap.
using SeqRange = std::pair<uint64_t, uint64_t>;  // first, last (inclusive)
struct SeenEntry {
  std::string publisher;
  uint64_t high = 0;
  std::vector<SeqRange> holes;  // sorted, disjoint
  bool operator<(const SeenEntry& o) const { return publisher < o.publisher; }
};
using SeenVector = std::vector<SeenEntry>;

struct JoinRequest {
  uint64_t attempt = 0;    // echoed in the reply
  // Re-attaching after a loss or a merge: how far back each side replays
  // events of publishers the other never saw. Zero on a first join: no replay.
  Nanos replay_window{0};
  NodeRef lost_parent;     // the parent just lost, if any: never attach below it
  Interest interest;
  SeenVector seen;
};

struct JoinReply {
  enum class Result { kAccepted, kRedirect, kRefused };
  uint64_t attempt = 0;
  Result result = Result::kRefused;
  std::string reason;             // kRefused
  std::vector<NodeRef> redirect;  // kRedirect: try these (children with room), best first
  std::vector<NodeRef> path;      // kAccepted: root ... acceptor
  Interest interest;              // kAccepted: what the acceptor's side wants
  SeenVector seen;
};

struct Heartbeat {
  bool from_parent = false;       // the sender is the recipient's parent
  std::vector<NodeRef> path;      // the sender's path, root first, ending with the sender
  std::vector<NodeRef> children;  // from a parent: its children (the recipient's siblings)
  uint32_t subtree_size = 1;      // from a child: agents in its subtree
  int64_t sent_at = 0;            // sender's clock, ns
  int64_t echo_sent_at = 0;       // the recipient's last heartbeat's sent_at...
  int64_t echo_age = 0;           // ...and how long ago the sender received it
  Residents residents;            // the sender's clients, jobs and ranks
};

struct InterestUpdate {
  Interest interest;
  SeenVector seen;          // sent with a repair only
  Nanos replay_window{0};   // as in JoinRequest; zero for a change of subscriptions
};
// An InterestUpdate with this window changes no interest: it asks for the
// events in the holes of `seen` (a subscriber's gap; see TreeNode::requestFills).
inline constexpr Nanos kFillRequest{-1};

// Sequences of a publisher that the sender has seen but no longer retains:
// the side that lacks them will never get them and counts them as lost.
struct GoneEntry {
  std::string publisher;
  std::string event_space;
  std::vector<SeqRange> ranges;  // sorted, disjoint
};

struct EventBatch {
  std::vector<TreeEvent> events;
  std::vector<GoneEntry> gone;
};

// The sender drops the link (shutting down, or it does not recognise the
// recipient as parent or child). The recipient repairs at once.
struct Leave {
  std::string reason;
};

struct Probe {
  uint64_t nonce = 0;
};

struct ProbeReply {
  uint64_t nonce = 0;
  bool in_tree = false;        // false while the node itself is still joining
  std::vector<NodeRef> path;   // root first
};

// Sent by a root to the root of a tree with a larger key: join us.
struct MergeInvite {};

using TreeBody = std::variant<JoinRequest, JoinReply, Heartbeat, InterestUpdate, EventBatch, Leave,
                              Probe, ProbeReply, MergeInvite>;

struct TreeMessage {
  NodeRef from;
  TreeBody body;
};

}  // namespace ftb::tree
