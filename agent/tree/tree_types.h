// The vocabulary of the agent tree: who a node is, what travels between nodes,
// and the two things the tree logic needs from the outside world (a clock and
// a way to send). The real agent implements them with steady_clock and ZeroMQ;
// the simulator with virtual time and an in-memory network.
#pragma once

#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ftb::tree {

using Nanos = std::chrono::nanoseconds;  // time on the node's own monotonic clock

// One incarnation of an agent: its address (where peers send to, unique in the
// cluster) and when this process started (a restarted agent is a new node).
struct NodeRef {
  std::string address;
  uint64_t incarnation = 0;
  std::string name;  // for people: the agent's --name
  // Where the agent answers liveness PINGs (a listener of its own, served by an
  // otherwise idle thread); "" = none: peers probe `address`. Not identity.
  std::string probe;

  bool sameNode(const NodeRef& other) const {
    return address == other.address && incarnation == other.incarnation;
  }
  bool empty() const { return address.empty(); }
};

// Who lives on an agent: its clients and, per job, the ranks among them (the
// clients that said their rank at Hello). Every heartbeat carries the
// sender's, so when an agent is lost its neighbour can say what went with it.
struct Residents {
  uint32_t clients = 0;
  std::map<std::string, std::vector<int32_t>> ranks_by_job;  // job id -> ranks, ascending (empty: none said)
  bool operator==(const Residents&) const = default;
};

// Trees are ordered by their root: when two trees meet, the one whose root has
// the larger key joins the other, so the oldest tree absorbs newcomers and two
// roots never both give way.
struct TreeKey {
  uint64_t incarnation = 0;
  std::string address;
  auto operator<=>(const TreeKey&) const = default;
};
inline TreeKey keyOf(const NodeRef& n) { return {n.incarnation, n.address}; }

// An event as the tree sees it: who published it, its place in that
// publisher's sequence, and its namespace (all of one publisher's events share
// one namespace, so a link carries all of a publisher's events or none).
struct TreeEvent {
  std::string publisher;  // EventId::publisherKey()
  uint64_t seq = 0;
  std::string event_space;
  bool flood = false;  // responses go everywhere: their addressee is found by the agent
  std::shared_ptr<const std::string> bytes;  // the serialized event (unused by the simulator)
};

// Why events of another agent will never reach this one's subscribers.
enum class LossCause {
  kNoLongerRetained,  // every agent that saw them has dropped them from its relay log
  kNotFilledInTime,   // their gap waited longer than the reorder hold for a fill
};

struct TreeConfig {
  uint32_t fan_out = 8;                     // children per agent at most
  Nanos heartbeat_interval = std::chrono::milliseconds(200);
  Nanos link_timeout = std::chrono::milliseconds(800);  // silence that declares a link dead
  // When the transport finds silent deaths itself (PINGs answered off the
  // agent's loop), heartbeat silence only finds a wedged or starved agent:
  // the adaptive allowance then starts from this instead of link_timeout. 0: link_timeout.
  Nanos silence_floor{0};
  Nanos probe_interval = std::chrono::milliseconds(500);  // roots look for other trees this often
  std::vector<std::string> seeds;           // addresses to join through (self is skipped)
  std::size_t retention_events = 100000;    // kept for replay after a repair
  Nanos retention_age = std::chrono::seconds(60);
  // and by memory: bytes of the events plus a fixed overhead each (RelayLog).
  std::size_t retention_bytes = 4 * 1024 * 1024;
  // After a repair, events of publishers the other side never saw are replayed
  // if they arrived since the split, plus this margin (events in flight when
  // the link died). Capped by retention_age.
  Nanos replay_margin = std::chrono::seconds(2);
  uint32_t max_batch_events = 256;
  // How long events wait for a gap before them to be filled by a replay
  // before they are delivered anyway (and the gap counted as lost). On a
  // starved machine the wait stretches with the stalls the node observes,
  // as link timeouts do (TreeNode::reorderHold).
  Nanos reorder_timeout = std::chrono::seconds(3);
};

}  // namespace ftb::tree
