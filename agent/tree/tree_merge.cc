// TreeNode merging: finding other trees and joining them, so that trees split
// by a partition, or started apart, become one again.
//
// Roots probe the seeds and the peers they know. Every agent probes its
// former neighbours, and the siblings it had when it lost its parent, for a
// while, and now and then a peer it knows: with all seeds gone, an agent that
// restarts finds no tree unless someone looks for it, and the parts of a
// split tree only meet through what their members remember. An agent that
// finds another tree tells its root, which decides. When two trees
// meet, the one whose root has the larger key (later start) joins the other,
// so two roots never both give way.
#include <algorithm>

#include "agent/tree/tree_node.h"

namespace ftb::tree {
namespace {

constexpr std::size_t kMaxKnownPeers = 64;
constexpr uint64_t kRoundsPerKnownPeer = 8;

}  // namespace

void TreeNode::remember(const NodeRef& peer) {
  if (peer.address == self_.address) return;
  if (std::find(known_peers_.begin(), known_peers_.end(), peer.address) != known_peers_.end()) return;
  if (known_peers_.size() >= kMaxKnownPeers) {
    // Seeds stay; the oldest remembered peer makes room.
    const std::size_t first_learned = std::min(seed_count_, known_peers_.size() - 1);
    known_peers_.erase(known_peers_.begin() + static_cast<std::ptrdiff_t>(first_learned));
  }
  known_peers_.push_back(peer.address);
}

void TreeNode::setSeeds(const std::vector<std::string>& seeds) {
  std::vector<std::string> peers;
  for (const std::string& seed : seeds) {
    if (seed != self_.address && std::find(peers.begin(), peers.end(), seed) == peers.end()) {
      peers.push_back(seed);
    }
  }
  const std::size_t new_seed_count = peers.size();
  for (std::size_t i = seed_count_; i < known_peers_.size(); ++i) {
    if (std::find(peers.begin(), peers.end(), known_peers_[i]) == peers.end() &&
        peers.size() < kMaxKnownPeers) {
      peers.push_back(known_peers_[i]);
    }
  }
  config_.seeds = seeds;
  known_peers_ = std::move(peers);
  seed_count_ = new_seed_count;
  next_known_peer_ = 0;
  probe_seeds_next_ = true;
}

void TreeNode::probeAnotherTree(Nanos now) {
  std::uniform_int_distribution<int64_t> jitter(0, config_.probe_interval.count() / 2);
  next_probe_at_ = now + config_.probe_interval + Nanos(jitter(random_));
  // Alternately the seeds (where sites put them to be found) and the other
  // peers this node has known (a few dozen at most: only roots do this).
  const std::size_t first = probe_seeds_next_ ? 0 : seed_count_;
  const std::size_t end = probe_seeds_next_ ? seed_count_ : known_peers_.size();
  for (std::size_t i = first; i < end; ++i) send(known_peers_[i], Probe{++probe_nonce_});
  probe_seeds_next_ = !probe_seeds_next_;
}

void TreeNode::onProbe(const NodeRef& from, const Probe& probe) {
  remember(from);  // knowledge spreads both ways
  send(from.address, ProbeReply{probe.nonce, state_ != State::kJoining, path_});
}

void TreeNode::onProbeReply(const NodeRef& from, const ProbeReply& reply, Nanos now) {
  remember(from);
  if (state_ == State::kJoining) {
    candidate_probe_.answered.insert(from.address);
    return;
  }
  if (!reply.in_tree || reply.path.empty()) return;
  const NodeRef& their_root = reply.path.front();
  if (their_root.sameNode(path_.front())) {  // our own tree
    lost_peers_.erase(from.address);
    return;
  }
  if (state_ == State::kAttached) {
    // Another tree: which one joins which is for our root to decide.
    return send(path_.front().address, ProbeReply{0, true, reply.path});
  }
  if (keyOf(their_root) < keyOf(self_)) {
    merging_ = true;
    // Through the agent that answered when it is in that tree (a reply passed
    // on by one of ours is not), else through its root.
    std::deque<Candidate> candidates{{their_root.address}};
    if (reply.path.back().sameNode(from)) candidates.push_front({from.address});
    beginJoin(std::move(candidates), /*repair=*/true, now);
  } else {
    send(their_root.address, MergeInvite{});
  }
}

void TreeNode::onMergeInvite(const NodeRef& from, Nanos now) {
  if (state_ == State::kAttached) {
    // The inviter knew us as a root from a path that is stale now (we merged
    // into another tree): tell it where our root is.
    return send(from.address, ProbeReply{0, true, path_});
  }
  if (state_ != State::kRoot || !(keyOf(from) < keyOf(self_))) return;
  merging_ = true;
  beginJoin({{from.address}}, /*repair=*/true, now);
}

void TreeNode::probeNeighbourhood(Nanos now) {
  next_neighbourhood_probe_at_ = now + config_.probe_interval;
  std::erase_if(lost_peers_, [&](const auto& entry) { return entry.second <= now; });
  for (const auto& [address, until] : lost_peers_) send(address, Probe{++probe_nonce_});
  // Now and then one peer this agent has known, in turn: when all seeds are
  // gone, the parts of a split tree still find each other through what
  // their many members remember.
  if (++neighbourhood_rounds_ % kRoundsPerKnownPeer == 0 && !known_peers_.empty()) {
    send(known_peers_[next_known_peer_++ % known_peers_.size()], Probe{++probe_nonce_});
  }
}

}  // namespace ftb::tree
