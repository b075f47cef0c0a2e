// One agent's part in the self-healing tree: joining through seeds, watching
// links with heartbeats, re-attaching when the parent dies, electing a new root
// when the root dies, merging trees when a partition heals, and routing events
// along the tree toward interested agents only, with replay and duplicate
// suppression across repairs.
//
// Pure logic: time comes in as arguments and messages leave through a
// TreeTransport, so the same code runs in the agent (agent/tree_link.*) and in
// the deterministic simulator (tests/sim/). Not thread-safe: one thread drives it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agent/tree/interest.h"
#include "agent/tree/local_order.h"
#include "agent/tree/relay_log.h"
#include "agent/tree/tree_messages.h"
#include "agent/tree/tree_types.h"

namespace ftb::tree {

class TreeTransport {
 public:
  virtual ~TreeTransport() = default;
  // In order per destination, best effort: a message to a dead peer is lost
  // and the protocol recovers (timeouts, replay).
  virtual void send(const std::string& to, TreeMessage message) = 0;
  // The node has stopped talking to `to`; whatever is queued for it may go.
  virtual void forget(const std::string& to) = 0;
};

struct TopologyChange {
  enum class Kind {
    kJoined,         // first attach to a tree
    kParentLost,     // the parent died or left; repair under way
    kReattached,     // repaired: attached to a new parent (repair_time set)
    kBecameRoot,     // repaired by becoming a root (founding a tree at start-up is not reported)
    kChildAttached,
    kChildLost,
    kMerged,         // this tree's root joined an older tree
    kCycleBroken,    // a cycle formed by concurrent repairs was detected and cut
  };
  // A kParentLost / kChildLost whose peer is presumed dead: its link went
  // silent or its connection closed (not a Leave, a restart or a conflict).
  struct PeerLoss {
    std::string by;          // "silence" or "connection-closed"
    Nanos silent_for{0};     // from its last message to the verdict
    Residents residents;     // who lived there, as its last heartbeat said
    // This agent is the one that announces the lost agent's node: its parent,
    // or for a lost root its oldest child (the one that takes over). Every
    // other neighbour only reports its link.
    bool announce = false;
  };
  Kind kind;
  NodeRef subject;  // the parent, child or new parent concerned
  Nanos repair_time{0};
  std::string detail;
  std::optional<PeerLoss> loss;
};

class TreeHost {
 public:
  virtual ~TreeHost() = default;
  // An event that arrived from another agent, once: match it to local subscribers.
  virtual void deliverLocal(const TreeEvent& event) = 0;
  virtual void topologyChanged(const TopologyChange& change) = 0;
  // Who lives on this agent now; read once per round of heartbeats.
  virtual Residents localResidents() const { return {}; }
  // `count` events of `event_space` from another agent will never arrive (a
  // gap that no replay filled in time, or events the agents that saw them no
  // longer retain: "gone", even the end of a stream): local subscribers must be told.
  virtual void eventsLost(const std::string& /*event_space*/, uint64_t /*count*/, LossCause /*cause*/) {}
};

class TreeNode {
 public:
  // How long former neighbours are probed for, in case they come back.
  static constexpr Nanos kLostPeerMemory = std::chrono::minutes(5);

  enum class State { kJoining, kAttached, kRoot };

  TreeNode(NodeRef self, TreeConfig config, TreeTransport& transport, TreeHost& host,
           uint64_t random_seed);

  void start(Nanos now);
  void onMessage(const TreeMessage& message, Nanos now);
  // Timers: heartbeats, link and join timeouts, probes. Call at least every
  // heartbeat_interval / 4. `input_backlog`: the caller has messages it has
  // not read yet (a starved agent). A peer's heartbeat may be among them, so
  // silence is then judged against kBacklogTimeoutFactor link timeouts: an
  // overloaded agent does not tear down healthy links, a dead peer is still
  // found.
  //
  // The link timeout adapts to the jitter each link shows (see silenceAllowed):
  // config.link_timeout (or config.silence_floor when set) is the floor, which holds in a quiet system, and the
  // allowance grows to 4 x gap - 3 x heartbeat_interval, gap being the longest
  // recent silence between two messages from that peer or any other (any message counts, not only heartbeats),
  // decaying by 1/kJitterFade per heartbeat interval, up to maxLinkTimeout().
  // A tick that comes more than a heartbeat interval after the previous one
  // means this node's own thread was starved: it judges nothing on that turn,
  // and the stall counts as jitter on every link (the peers share the starved
  // machine, or their messages waited for us).
  void tick(Nanos now, bool input_backlog = false);
  // The transport saw its connection to `address` close: the peer's kernel
  // closed it (the process died) or the transport's own keepalive heard
  // nothing (a silent death). A link to `address` is dead at once, without
  // waiting for the link timeout; other addresses are ignored.
  void onPeerDisconnected(const std::string& address, Nanos now);
  static constexpr int kBacklogTimeoutFactor = 4;
  // The adaptive link timeout never exceeds this many link timeouts (backlog included).
  static constexpr int kMaxTimeoutFactor = 20;
  // Observed jitter loses 1/kJitterFade per heartbeat interval (about half in
  // 44 heartbeats, ~2.2 s with the agent's defaults).
  static constexpr int kJitterFade = 64;
  static Nanos maxLinkTimeout(const TreeConfig& config) { return kMaxTimeoutFactor * config.link_timeout; }
  // Sends the event batches built since the last flush.
  void flush();
  // An event accepted from a local client; false when it is a duplicate.
  bool publishLocal(const TreeEvent& event, Nanos now);
  void setLocalInterest(Interest interest, Nanos now);
  // Graceful shutdown: tells parent and children, who repair at once.
  void leave(const std::string& reason);
  // Replaces the seeds (configuration reload); peers learned since start stay known.
  // A root probes its seeds, so new seeds lead to a merge with their tree.
  void setSeeds(const std::vector<std::string>& seeds);

  // ---- introspection (ftbctl tree, metrics, tests) ----
  struct LinkView {
    NodeRef node;
    bool is_parent = false;
    Nanos rtt{-1};  // -1: not measured yet
    Nanos silent_for{0};
    uint32_t subtree_size = 1;
    Nanos timeout{0};  // the silence this link is allowed now (adaptive, no backlog)
    Residents residents;  // the peer's, from its last heartbeat
  };
  struct Stats {
    uint64_t repairs = 0;
    Nanos last_repair_time{0};
    uint64_t events_forwarded = 0;
    uint64_t events_replayed = 0;
    uint64_t duplicates_suppressed = 0;
    uint64_t cycles_broken = 0;
    uint64_t merges = 0;
    uint64_t events_lost = 0;  // gaps given up on (see TreeConfig::reorder_timeout)
  };
  const NodeRef& self() const { return self_; }
  State state() const { return state_; }
  const std::vector<NodeRef>& path() const { return path_; }  // root first, ends with self
  std::optional<NodeRef> parent() const;
  std::vector<NodeRef> children() const;
  std::vector<LinkView> links(Nanos now) const;
  uint32_t subtreeSize() const;
  Stats stats() const;
  std::size_t retained() const { return relay_.retained(); }
  std::size_t retainedBytes() const { return relay_.retainedBytes(); }

 private:
  struct Link {
    NodeRef node;
    bool is_parent = false;
    Nanos last_heard{0};
    // Longest recent silence between two messages from the peer (or a stall
    // of our own), decaying: the jitter the link timeout adapts to.
    Nanos recent_gap{0};
    Nanos rtt{-1};
    int64_t their_sent_at = 0;  // from their last heartbeat, echoed back
    Nanos their_received_at{0};
    uint32_t subtree_size = 1;
    Residents residents;        // from their last heartbeat
    InterestMatcher interest;   // what their side wants
    Interest sent_interest;     // what we last told them our side wants
    std::vector<TreeEvent> batch;
    std::vector<GoneEntry> gone;  // sent with the next batch
  };
  struct Candidate {
    std::string address;
  };
  // A repair probes all its candidates at once, so that after one join
  // timeout those that never answered (dead, or across a partition) are
  // skipped instead of timing out one after the other.
  struct CandidateProbe {
    Nanos sent_at{0};
    std::set<std::string> asked;
    std::set<std::string> answered;
  };
  struct PendingJoin {
    std::string address;
    uint64_t attempt = 0;
    Nanos deadline{0};
  };

  // tree_node.cc: membership; tree_merge.cc: probing and merging trees.
  void send(const std::string& to, TreeBody body);
  void onJoinRequest(const NodeRef& from, const JoinRequest& request, Nanos now);
  void onJoinReply(const NodeRef& from, const JoinReply& reply, Nanos now);
  void onHeartbeat(Link& link, const Heartbeat& heartbeat, Nanos now);
  void onLeave(const NodeRef& from, const Leave& leave, Nanos now);
  void onProbe(const NodeRef& from, const Probe& probe);
  void onProbeReply(const NodeRef& from, const ProbeReply& reply, Nanos now);
  void onMergeInvite(const NodeRef& from, Nanos now);
  void acceptChild(const NodeRef& from, const JoinRequest& request, Nanos now);
  void attachTo(const NodeRef& parent, const JoinReply& reply, Nanos now);
  void beginJoin(std::deque<Candidate> candidates, bool repair, Nanos now);
  void tryNextCandidate(Nanos now);
  void probeCandidates(Nanos now);
  bool silentCandidate(const std::string& address, Nanos now) const;
  Nanos joinTimeout() const;
  void becomeRoot(Nanos now);
  void orphaned(const NodeRef& lost, const std::string& why, Nanos last_heard,
                std::optional<TopologyChange::PeerLoss> loss, Nanos now);
  // `presumed_dead_by`: "silence" or "connection-closed" when the peer is
  // presumed dead, null when the link ended otherwise (a Leave, a restart).
  void dropLink(const std::string& address, const std::string& why, Nanos now,
                const char* presumed_dead_by = nullptr);
  bool oldestChildOfLostRoot(const NodeRef& lost) const;
  void sendHeartbeats(Nanos now);
  void heard(Link& link, Nanos now);
  Nanos silenceAllowed(const Link& link, bool input_backlog) const;
  // How long a gap may wait for its fill now: config.reorder_timeout, or
  // kHoldPerStall times the longest recent stall when that is longer (a fill
  // crosses several starved agents), at most config.retention_age.
  Nanos reorderHold() const;
  static constexpr int kHoldPerStall = 8;
  void probeAnotherTree(Nanos now);
  void probeNeighbourhood(Nanos now);
  void remember(const NodeRef& peer);
  bool knownDead(const NodeRef& node, Nanos now) const;
  bool inPath(const std::string& address) const;
  Link* linkFrom(const NodeRef& from, Nanos now);

  // tree_routing.cc: interest and events.
  Interest interestFor(const std::string& link_address) const;
  void propagateInterest(const std::string& except, const SeenVector& their_seen,
                         Nanos replay_window, Nanos now);
  void onInterestUpdate(Link& link, const InterestUpdate& update, Nanos now);
  void onEvents(Link& link, const EventBatch& batch, Nanos now);
  void forward(const TreeEvent& event, const std::string& except);
  void replayTo(Link& link, const SeenVector& their_seen, Nanos replay_window,
                const InterestMatcher* already_sent, Nanos now);
  void queueEvent(Link& link, const TreeEvent& event);
  void deliverInOrder(const TreeEvent& event, Nanos now);
  void onGone(const GoneEntry& gone, const std::string& from, Nanos now);
  void release(const std::vector<LocalOrder::Loss>& lost, const std::vector<TreeEvent>& ready);
  void sendBatch(Link& link);
  void requestFills(Nanos now);
  void onFillRequest(Link& link, SeenVector wanted);
  void sendFillRequest(const std::string& to, SeenVector wanted);
  std::string towardPublisher(const std::string& publisher, const std::string& asker) const;
  void expireGaps(Nanos now);

  NodeRef self_;
  TreeConfig config_;
  TreeTransport& transport_;
  TreeHost& host_;
  std::mt19937_64 random_;

  State state_ = State::kJoining;
  std::vector<NodeRef> path_;
  std::map<std::string, Link> links_;  // by address; ordered so runs are reproducible
  std::string parent_address_;
  std::vector<NodeRef> siblings_;      // the parent's children, from its heartbeats
  Interest local_interest_;
  InterestMatcher local_matcher_;
  RelayLog relay_;
  LocalOrder local_order_;

  // Joining / repairing.
  std::deque<Candidate> candidates_;
  std::optional<PendingJoin> pending_;
  CandidateProbe candidate_probe_;
  Nanos next_attempt_at_{0};
  uint64_t attempts_ = 0;
  int redirects_ = 0;
  bool join_repair_ = false;
  bool merging_ = false;
  bool ever_attached_ = false;
  Interest join_interest_;
  std::optional<Nanos> orphaned_at_;
  Nanos join_window_{0};  // replay window of the join under way
  // Our side's interest changed while no parent link existed to tell (joining
  // or merging): the largest replay window those changes asked for. The new
  // parent hears the change, with this window, as soon as it accepts us.
  Nanos unsent_interest_window_{0};
  NodeRef lost_parent_;
  std::map<std::string, std::pair<NodeRef, Nanos>> dead_;  // address -> (node, forget after)
  std::map<std::string, int> not_ready_counts_;  // "not ready" answers per candidate

  // Roots look for other trees among the peers they know.
  std::vector<std::string> known_peers_;  // the seeds first, then peers learned
  std::size_t seed_count_ = 0;
  Nanos next_probe_at_{0};
  bool probe_seeds_next_ = true;
  uint64_t probe_nonce_ = 0;
  // Former neighbours and the siblings of a lost parent (address -> probe
  // until): one found in another tree is merged with ours.
  std::map<std::string, Nanos> lost_peers_;
  Nanos next_neighbourhood_probe_at_{0};
  uint64_t neighbourhood_rounds_ = 0;
  std::size_t next_known_peer_ = 0;

  Nanos next_heartbeat_at_{0};
  Nanos last_tick_{0};
  // The longest recent gap on any link or of our own loop (decaying): jitter
  // seen anywhere makes every link patient, since one starved agent or machine
  // rarely stalls alone and the first long gap on a link would otherwise kill it.
  Nanos recent_gap_{0};
  Nanos next_prune_at_{0};
  Stats stats_;
};

}  // namespace ftb::tree
