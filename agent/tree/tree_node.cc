// TreeNode membership: joining, heartbeats, repair, root election (merging
// trees is in tree_merge.cc).
//
// Why the tree cannot grow a cycle: a node attaches only below a node whose
// path (root first) holds neither itself nor a node it knows to be dead, and
// an orphan tries its own ancestors first, which can never lie in its subtree.
// Concurrent repairs can still race; a node that finds itself in its parent's
// path cuts the link and joins again, so a cycle lives at most a few heartbeats.
#include "agent/tree/tree_node.h"

#include <algorithm>

namespace ftb::tree {
namespace {

constexpr int kMaxRedirects = 32;
constexpr int kMaxNotReadyRetries = 8;
constexpr std::size_t kRedirectChoices = 3;

}  // namespace

TreeNode::TreeNode(NodeRef self, TreeConfig config, TreeTransport& transport, TreeHost& host,
                   uint64_t random_seed)
    : self_(std::move(self)),
      config_(std::move(config)),
      transport_(transport),
      host_(host),
      random_(random_seed),
      relay_(config_.retention_events, config_.retention_age, config_.retention_bytes),
      local_order_(config_.reorder_timeout) {
  path_ = {self_};
  for (const std::string& seed : config_.seeds) {
    if (seed != self_.address &&
        std::find(known_peers_.begin(), known_peers_.end(), seed) == known_peers_.end()) {
      known_peers_.push_back(seed);
    }
  }
  seed_count_ = known_peers_.size();
}

void TreeNode::send(const std::string& to, TreeBody body) {
  transport_.send(to, TreeMessage{self_, std::move(body)});
}

void TreeNode::start(Nanos now) {
  std::vector<std::string> seeds = known_peers_;
  std::shuffle(seeds.begin(), seeds.end(), random_);  // spread first joins over the seeds
  std::deque<Candidate> candidates;
  for (auto& s : seeds) candidates.push_back({s});
  next_heartbeat_at_ = now;
  beginJoin(std::move(candidates), /*repair=*/false, now);
}

std::optional<NodeRef> TreeNode::parent() const {
  if (parent_address_.empty()) return std::nullopt;
  return links_.at(parent_address_).node;
}

std::vector<NodeRef> TreeNode::children() const {
  std::vector<NodeRef> out;
  for (const auto& [address, link] : links_) {
    if (!link.is_parent) out.push_back(link.node);
  }
  return out;
}

uint32_t TreeNode::subtreeSize() const {
  uint32_t size = 1;
  for (const auto& [address, link] : links_) {
    if (!link.is_parent) size += link.subtree_size;
  }
  return size;
}

std::vector<TreeNode::LinkView> TreeNode::links(Nanos now) const {
  std::vector<LinkView> out;
  for (const auto& [address, link] : links_) {
    out.push_back({link.node, link.is_parent, link.rtt, now - link.last_heard, link.subtree_size,
                   silenceAllowed(link, false), link.residents});
  }
  return out;
}

TreeNode::Stats TreeNode::stats() const {
  Stats s = stats_;
  s.duplicates_suppressed = relay_.duplicates();
  return s;
}

bool TreeNode::inPath(const std::string& address) const {
  return std::any_of(path_.begin(), path_.end(), [&](const NodeRef& n) { return n.address == address; });
}

bool TreeNode::knownDead(const NodeRef& node, Nanos now) const {
  auto it = dead_.find(node.address);
  return it != dead_.end() && it->second.second > now && it->second.first.sameNode(node);
}

TreeNode::Link* TreeNode::linkFrom(const NodeRef& from, Nanos now) {
  auto it = links_.find(from.address);
  if (it == links_.end()) return nullptr;
  if (!it->second.node.sameNode(from)) {
    // The peer restarted at the same address: the old incarnation is gone.
    dropLink(from.address, "it restarted", now);
    return nullptr;
  }
  heard(it->second, now);
  return &it->second;
}

void TreeNode::onMessage(const TreeMessage& message, Nanos now) {
  const NodeRef& from = message.from;
  if (from.address == self_.address) return;
  if (const auto* m = std::get_if<JoinRequest>(&message.body)) return onJoinRequest(from, *m, now);
  if (const auto* m = std::get_if<JoinReply>(&message.body)) return onJoinReply(from, *m, now);
  if (const auto* m = std::get_if<Probe>(&message.body)) return onProbe(from, *m);
  if (const auto* m = std::get_if<ProbeReply>(&message.body)) return onProbeReply(from, *m, now);
  if (std::holds_alternative<MergeInvite>(message.body)) return onMergeInvite(from, now);
  if (const auto* m = std::get_if<Leave>(&message.body)) return onLeave(from, *m, now);

  // The rest travels only on links.
  Link* link = linkFrom(from, now);
  if (link == nullptr) {
    // They think we are linked and we do not: tell them, so they repair.
    send(from.address, Leave{"not linked to " + self_.address});
    return;
  }
  if (const auto* m = std::get_if<Heartbeat>(&message.body)) return onHeartbeat(*link, *m, now);
  if (const auto* m = std::get_if<InterestUpdate>(&message.body)) return onInterestUpdate(*link, *m, now);
  if (const auto* m = std::get_if<EventBatch>(&message.body)) return onEvents(*link, *m, now);
}

// ---- joining ----

void TreeNode::beginJoin(std::deque<Candidate> candidates, bool repair, Nanos now) {
  state_ = State::kJoining;
  candidates_ = std::move(candidates);
  candidate_probe_ = CandidateProbe{};
  pending_.reset();
  redirects_ = 0;
  join_repair_ = repair;
  next_attempt_at_ = now;
  tryNextCandidate(now);
}

void TreeNode::tryNextCandidate(Nanos now) {
  pending_.reset();
  while (!candidates_.empty()) {
    Candidate c = candidates_.front();
    candidates_.pop_front();
    if (c.address == self_.address || links_.count(c.address) != 0) continue;
    if (auto d = dead_.find(c.address); d != dead_.end() && d->second.second > now) continue;
    if (silentCandidate(c.address, now)) continue;
    pending_ = PendingJoin{c.address, ++attempts_, now + joinTimeout()};
    join_interest_ = interestFor(parent_address_);  // our whole side: local + children
    // A repair replays what was published since this side split off and what
    // was in flight then. Two trees meeting replay all they retain: each part
    // may have been cut off for as long as its root can remember.
    join_window_ = Nanos(0);
    if (merging_ || (join_repair_ && !orphaned_at_)) {
      join_window_ = config_.retention_age;
    } else if (join_repair_) {
      join_window_ = std::min(now - *orphaned_at_ + config_.link_timeout + config_.replay_margin,
                              config_.retention_age);
    }
    JoinRequest request{.attempt = pending_->attempt,
                        .replay_window = join_window_,
                        .lost_parent = lost_parent_,
                        .interest = join_interest_,
                        .seen = {}};
    InterestMatcher ours;
    ours.assign(join_interest_);
    request.seen = relay_.report(ours, {});
    send(c.address, std::move(request));
    return;
  }
  becomeRoot(now);
}

Nanos TreeNode::joinTimeout() const {
  return std::max(2 * config_.heartbeat_interval, config_.link_timeout / 2);
}

void TreeNode::probeCandidates(Nanos now) {
  candidate_probe_ = CandidateProbe{now, {}, {}};
  for (const Candidate& c : candidates_) {
    if (candidate_probe_.asked.insert(c.address).second) send(c.address, Probe{++probe_nonce_});
  }
}

bool TreeNode::silentCandidate(const std::string& address, Nanos now) const {
  const CandidateProbe& p = candidate_probe_;
  return now - p.sent_at >= joinTimeout() && p.asked.count(address) != 0 &&
         p.answered.count(address) == 0;
}

void TreeNode::becomeRoot(Nanos now) {
  const bool was_repair = orphaned_at_.has_value();
  const bool was_root = state_ == State::kRoot || merging_;
  state_ = State::kRoot;
  path_ = {self_};
  pending_.reset();
  merging_ = false;
  std::uniform_int_distribution<int64_t> jitter(0, config_.probe_interval.count());
  next_probe_at_ = now + config_.probe_interval / 2 + Nanos(jitter(random_));
  if (was_root) return;  // a merge attempt found no taker: still the same root
  // Founding a tree at start-up is no change anyone must react to.
  if (!was_repair) return;
  const Nanos repair_time = now - *orphaned_at_;
  ++stats_.repairs;
  stats_.last_repair_time = repair_time;
  orphaned_at_.reset();
  host_.topologyChanged({TopologyChange::Kind::kBecameRoot, self_, repair_time,
                         "no live ancestor or older sibling: this agent is now a root"});
}

void TreeNode::onJoinRequest(const NodeRef& from, const JoinRequest& request, Nanos now) {
  auto refuse = [&](std::string reason) {
    send(from.address, JoinReply{.attempt = request.attempt,
                                 .result = JoinReply::Result::kRefused,
                                 .reason = std::move(reason)});
  };
  if (state_ == State::kJoining) {
    // Agents booting together would each wait for the other: on a first join
    // the older one founds a tree and the younger joins it (merging later
    // joins any tree found meanwhile).
    if (!ever_attached_ && !join_repair_ && !merging_ && keyOf(self_) < keyOf(from)) {
      becomeRoot(now);
    } else {
      return refuse("not ready: joining a tree itself");
    }
  }
  if (inPath(from.address)) return refuse("cycle: you are on my path to the root");
  if (pending_ && pending_->address == from.address) return refuse("crossing: I am asking to join you");
  if (auto it = links_.find(from.address); it != links_.end()) {
    if (it->second.is_parent) return refuse("cycle: you are my parent");
    if (it->second.node.sameNode(from)) {
      dropLink(from.address, "it joined again", now);  // lost our reply, or restarted its repair
    } else {
      dropLink(from.address, "it restarted", now);
    }
  }
  std::vector<const Link*> children;
  for (const auto& [address, link] : links_) {
    if (!link.is_parent) children.push_back(&link);
  }
  if (children.size() < config_.fan_out) return acceptChild(from, request, now);

  // Full: send it down toward the smallest subtrees, never to the parent it lost.
  std::sort(children.begin(), children.end(), [](const Link* a, const Link* b) {
    return a->subtree_size < b->subtree_size;
  });
  JoinReply reply{.attempt = request.attempt, .result = JoinReply::Result::kRedirect};
  for (const Link* child : children) {
    if (child->node.sameNode(request.lost_parent)) continue;
    reply.redirect.push_back(child->node);
    if (reply.redirect.size() == kRedirectChoices) break;
  }
  if (reply.redirect.empty()) {
    // Its lost parent still holds a place here: the orphan noticed the death
    // (a closed connection is seen within a millisecond) before we did. Ask
    // it to retry, as a repairing sibling does, rather than found a tree.
    for (const Link* child : children) {
      if (child->node.sameNode(request.lost_parent)) return refuse("not ready: your lost parent is still my child");
    }
    return refuse("full");
  }
  send(from.address, std::move(reply));
}

void TreeNode::acceptChild(const NodeRef& from, const JoinRequest& request, Nanos now) {
  Link& link = links_[from.address];
  link = Link{};
  link.node = from;
  link.last_heard = now;
  link.interest.assign(request.interest);
  link.sent_interest = interestFor(from.address);
  InterestMatcher ours;
  ours.assign(link.sent_interest);
  send(from.address, JoinReply{.attempt = request.attempt,
                               .result = JoinReply::Result::kAccepted,
                               .path = path_,
                               .interest = link.sent_interest,
                               .seen = relay_.report(ours, {})});
  remember(from);
  replayTo(link, request.seen, request.replay_window, nullptr, now);
  propagateInterest(from.address, request.seen, request.replay_window, now);
  host_.topologyChanged({TopologyChange::Kind::kChildAttached, from, Nanos(0),
                         request.replay_window > Nanos(0) ? "re-attached after a repair" : "joined"});
}

void TreeNode::onJoinReply(const NodeRef& from, const JoinReply& reply, Nanos now) {
  const bool expected = state_ == State::kJoining && pending_ && pending_->attempt == reply.attempt &&
                        pending_->address == from.address;
  if (!expected) {
    if (reply.result != JoinReply::Result::kAccepted) return;
    auto it = links_.find(from.address);
    if (it != links_.end() && it->second.is_parent && it->second.node.sameNode(from)) return;
    // A late acceptance: undo it. If they are our child meanwhile, each side now
    // holds the other as child; dropping the link on both sides resolves that,
    // and probing merges whatever trees result.
    send(from.address, Leave{"join no longer wanted"});
    if (it != links_.end()) dropLink(from.address, "conflicting join", now);
    return;
  }
  switch (reply.result) {
    case JoinReply::Result::kAccepted: {
      const bool stale = std::any_of(reply.path.begin(), reply.path.end(), [&](const NodeRef& n) {
        return n.address == self_.address || knownDead(n, now);
      });
      if (stale || reply.path.empty()) {
        send(from.address, Leave{"your path runs through me or a dead agent"});
        return tryNextCandidate(now);
      }
      return attachTo(from, reply, now);
    }
    case JoinReply::Result::kRedirect:
      if (++redirects_ <= kMaxRedirects) {
        for (auto it = reply.redirect.rbegin(); it != reply.redirect.rend(); ++it) {
          if (!knownDead(*it, now)) candidates_.push_front({it->address});
        }
      }
      return tryNextCandidate(now);
    case JoinReply::Result::kRefused:
      if (reply.reason.rfind("not ready", 0) == 0 &&
          ++not_ready_counts_[from.address] <= kMaxNotReadyRetries) {
        // It is repairing too (a sibling that has not noticed yet): ask again shortly.
        candidates_.push_front({from.address});
        pending_.reset();
        next_attempt_at_ = now + config_.heartbeat_interval;
        return;
      }
      return tryNextCandidate(now);
  }
}

void TreeNode::attachTo(const NodeRef& parent, const JoinReply& reply, Nanos now) {
  Link& link = links_[parent.address];
  link = Link{};
  link.node = parent;
  link.is_parent = true;
  link.last_heard = now;
  link.interest.assign(reply.interest);
  link.sent_interest = join_interest_;
  parent_address_ = parent.address;
  path_ = reply.path;
  path_.push_back(self_);
  for (const NodeRef& n : reply.path) remember(n);
  state_ = State::kAttached;
  pending_.reset();
  candidates_.clear();
  not_ready_counts_.clear();
  replayTo(link, reply.seen, join_window_, nullptr, now);
  // The join request carried our side's interest as it was when sent; what
  // grew since (a child attached or subscribed meanwhile) reaches the parent
  // here, or its events would never be routed to us.
  const Nanos window = std::max(join_window_, unsent_interest_window_);
  unsent_interest_window_ = Nanos(0);
  propagateInterest("", reply.seen, window, now);

  TopologyChange change{TopologyChange::Kind::kJoined, parent, Nanos(0), ""};
  if (merging_) {
    change.kind = TopologyChange::Kind::kMerged;
    change.detail = "this tree joined the older tree of " + reply.path.front().address;
    ++stats_.merges;
  } else if (orphaned_at_) {
    change.kind = TopologyChange::Kind::kReattached;
    change.repair_time = now - *orphaned_at_;
    ++stats_.repairs;
    stats_.last_repair_time = change.repair_time;
  }
  merging_ = false;
  orphaned_at_.reset();
  lost_parent_ = NodeRef{};
  ever_attached_ = true;
  host_.topologyChanged(change);
}

// ---- failures ----

void TreeNode::orphaned(const NodeRef& lost, const std::string& why, Nanos last_heard,
                        std::optional<TopologyChange::PeerLoss> loss, Nanos now) {
  // Repair time counts from the last sign of life, so it includes detection.
  if (!orphaned_at_) orphaned_at_ = last_heard;
  lost_parent_ = lost;
  dead_[lost.address] = {lost, now + 4 * config_.link_timeout};
  host_.topologyChanged({TopologyChange::Kind::kParentLost, lost, Nanos(0), why, std::move(loss)});

  // Ancestors first, nearest first: they cannot be in our subtree. Then older
  // siblings (the root's children elect the oldest among them), then seeds.
  std::deque<Candidate> candidates;
  for (std::size_t i = path_.size() >= 2 ? path_.size() - 2 : 0; i-- > 0;) {
    if (!path_[i].sameNode(lost)) candidates.push_back({path_[i].address});
  }
  std::vector<NodeRef> older;
  for (const NodeRef& s : siblings_) {
    // Watched too: if the repair splits the tree, they are in the other part.
    if (!s.sameNode(self_)) lost_peers_[s.address] = now + kLostPeerMemory;
    if (!s.sameNode(self_) && !s.sameNode(lost) && keyOf(s) < keyOf(self_)) older.push_back(s);
  }
  std::sort(older.begin(), older.end(), [](const NodeRef& a, const NodeRef& b) { return keyOf(a) < keyOf(b); });
  for (const NodeRef& s : older) candidates.push_back({s.address});
  // With ancestors or older siblings alive there is a tree to return to; the
  // seeds matter when there is none (then probing merges the pieces anyway).
  if (path_.size() <= 2 && older.empty()) candidates.clear();
  siblings_.clear();
  not_ready_counts_.clear();
  beginJoin(std::move(candidates), /*repair=*/true, now);
  if (state_ == State::kJoining) probeCandidates(now);
}

void TreeNode::dropLink(const std::string& address, const std::string& why, Nanos now,
                        const char* presumed_dead_by) {
  auto it = links_.find(address);
  if (it == links_.end()) return;
  const NodeRef node = it->second.node;
  const bool was_parent = it->second.is_parent;
  const Nanos last_heard = it->second.last_heard;
  std::optional<TopologyChange::PeerLoss> loss;
  if (presumed_dead_by != nullptr) {
    loss = TopologyChange::PeerLoss{.by = presumed_dead_by,
                                    .silent_for = now - last_heard,
                                    .residents = std::move(it->second.residents),
                                    .announce = !was_parent || oldestChildOfLostRoot(node)};
  }
  links_.erase(it);
  transport_.forget(address);
  lost_peers_[address] = now + kLostPeerMemory;
  if (was_parent) {
    parent_address_.clear();
    orphaned(node, why, last_heard, std::move(loss), now);
  } else {
    host_.topologyChanged({TopologyChange::Kind::kChildLost, node, Nanos(0), why, std::move(loss)});
  }
  propagateInterest("", {}, Nanos(0), now);  // their side's interest is gone
}

// A lost root has no parent to announce it: its oldest child does, the one the
// others elect as the new root. Judged on the siblings of the root's last
// heartbeat; a child that attached after it may announce too, which the
// event's correlation id (the same from every announcer) makes harmless.
bool TreeNode::oldestChildOfLostRoot(const NodeRef& lost) const {
  if (path_.size() != 2 || !path_.front().sameNode(lost)) return false;
  return std::none_of(siblings_.begin(), siblings_.end(), [&](const NodeRef& s) {
    return !s.sameNode(self_) && !s.sameNode(lost) && keyOf(s) < keyOf(self_);
  });
}

void TreeNode::onLeave(const NodeRef& from, const Leave& leave, Nanos now) {
  auto it = links_.find(from.address);
  if (it == links_.end() || !it->second.node.sameNode(from)) return;
  dropLink(from.address, "it left: " + leave.reason, now);
}

void TreeNode::leave(const std::string& reason) {
  for (const auto& [address, link] : links_) send(address, Leave{reason});
}

// ---- heartbeats ----

void TreeNode::sendHeartbeats(Nanos now) {
  const std::vector<NodeRef> kids = children();
  const uint32_t size = subtreeSize();
  const Residents residents = host_.localResidents();
  for (auto& [address, link] : links_) {
    Heartbeat hb{.from_parent = !link.is_parent,
                 .path = path_,
                 .children = link.is_parent ? std::vector<NodeRef>{} : kids,
                 .subtree_size = size,
                 .sent_at = now.count(),
                 .echo_sent_at = link.their_sent_at,
                 .echo_age = (now - link.their_received_at).count(),
                 .residents = residents};
    send(address, std::move(hb));
  }
}

void TreeNode::onHeartbeat(Link& link, const Heartbeat& hb, Nanos now) {
  if (hb.echo_sent_at > 0) link.rtt = now - Nanos(hb.echo_sent_at) - Nanos(hb.echo_age);
  link.their_sent_at = hb.sent_at;
  link.their_received_at = now;
  link.residents = hb.residents;
  if (hb.from_parent != link.is_parent) {
    // Each side takes the other for its parent (or child): a join crossed
    // another. Drop the link on both sides; repair and probing rebuild.
    send(link.node.address, Leave{"we disagree about which of us is the parent"});
    return dropLink(link.node.address, "parent/child disagreement", now);
  }
  if (!link.is_parent) {
    link.subtree_size = hb.subtree_size;
    return;
  }
  if (siblings_.size() != hb.children.size() ||
      !std::equal(siblings_.begin(), siblings_.end(), hb.children.begin(),
                  [](const NodeRef& a, const NodeRef& b) { return a.sameNode(b); })) {
    // Former siblings are whom a root cut off from the seeds can still probe.
    for (const NodeRef& s : hb.children) remember(s);
  }
  siblings_ = hb.children;
  if (std::any_of(hb.path.begin(), hb.path.end(), [&](const NodeRef& n) { return n.address == self_.address; })) {
    ++stats_.cycles_broken;
    const NodeRef parent = link.node;
    host_.topologyChanged({TopologyChange::Kind::kCycleBroken, parent, Nanos(0),
                           "this agent appeared on its own path to the root"});
    send(parent.address, Leave{"cycle"});
    path_ = {self_};  // the old path is meaningless: rejoin through the seeds
    return dropLink(parent.address, "a cycle was detected", now);
  }
  std::vector<NodeRef> path = hb.path;
  path.push_back(self_);
  path_ = std::move(path);
}

void TreeNode::heard(Link& link, Nanos now) {
  link.recent_gap = std::max(link.recent_gap, now - link.last_heard);
  recent_gap_ = std::max(recent_gap_, link.recent_gap);
  link.last_heard = now;
}

Nanos TreeNode::silenceAllowed(const Link& link, bool input_backlog) const {
  // Four times the gap, less three heartbeats: the jitter beyond the heartbeat
  // interval counts four times, and gaps of up to 1.75 heartbeats change nothing.
  const Nanos gap = std::max(link.recent_gap, recent_gap_);
  const Nanos floor = config_.silence_floor > Nanos(0) ? config_.silence_floor : config_.link_timeout;
  Nanos allowed = std::max(floor, 4 * gap - 3 * config_.heartbeat_interval);
  if (input_backlog) allowed *= kBacklogTimeoutFactor;
  return std::min(allowed, std::max(floor, maxLinkTimeout(config_)));
}

Nanos TreeNode::reorderHold() const {
  return std::min(std::max(config_.reorder_timeout, kHoldPerStall * recent_gap_), config_.retention_age);
}

void TreeNode::onPeerDisconnected(const std::string& address, Nanos now) {
  if (links_.count(address) == 0) return;
  dropLink(address, "its connection closed", now, "connection-closed");
}

// ---- timers ----

void TreeNode::tick(Nanos now, bool input_backlog) {
  // Our own thread was starved: what the peers sent may still wait unread, and
  // the machine (or this agent) is loaded; judge after the next read.
  const Nanos stall = last_tick_.count() > 0 ? now - last_tick_ : Nanos(0);
  last_tick_ = now;
  const bool stalled = stall > config_.heartbeat_interval;
  std::vector<std::pair<std::string, std::string>> silent;  // address, why
  for (auto& [address, link] : links_) {
    if (stalled) link.recent_gap = std::max(link.recent_gap, stall);
    recent_gap_ = std::max(recent_gap_, link.recent_gap);
    const Nanos allowed = silenceAllowed(link, input_backlog);
    if (!stalled && now - link.last_heard > allowed) {
      silent.emplace_back(address, "no heartbeat within the link timeout (silent " +
                                       std::to_string((now - link.last_heard).count() / 1000000) +
                                       " ms, allowed " + std::to_string(allowed.count() / 1000000) +
                                       " ms)");
    }
  }
  for (const auto& [address, why] : silent) dropLink(address, why, now, "silence");

  if (state_ == State::kJoining) {
    if (pending_ && now >= pending_->deadline) {
      dead_[pending_->address] = {NodeRef{pending_->address, 0, ""}, now + config_.link_timeout};
      tryNextCandidate(now);
    } else if (!pending_ && now >= next_attempt_at_) {
      tryNextCandidate(now);
    }
  }
  if (state_ == State::kRoot && now >= next_probe_at_) probeAnotherTree(now);
  if (state_ != State::kJoining && now >= next_neighbourhood_probe_at_) probeNeighbourhood(now);
  if (now >= next_heartbeat_at_) {
    for (auto& [address, link] : links_) link.recent_gap -= link.recent_gap / kJitterFade;
    recent_gap_ -= recent_gap_ / kJitterFade;  // jitter fades
    sendHeartbeats(now);
    requestFills(now);
    next_heartbeat_at_ = now + config_.heartbeat_interval;
  }
  expireGaps(now);
  if (now >= next_prune_at_) {
    relay_.prune(now);
    std::erase_if(dead_, [&](const auto& entry) { return entry.second.second <= now; });
    next_prune_at_ = now + std::chrono::seconds(1);
  }
}

}  // namespace ftb::tree
