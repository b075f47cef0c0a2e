// TreeNode routing: interest summaries up and down the tree, events along the
// links whose side wants them, and the replay that makes a repair lossless.
//
// A link carries every event of a publisher or none (routing is by namespace),
// so the highest sequence seen per publisher says exactly what a side of the
// tree has. When a link is (re)made after a repair, each side reports that and
// the other replays what lies beyond from its RelayLog; the duplicates this
// can cause are dropped by RelayLog::admit. What a report cannot show (a part
// of a side that lacks what the side's boundary agent never had) surfaces as
// a gap at a subscriber, which asks upstream for it (see "filling gaps").
// What a side lacks that the agent asked has seen but no longer retains is
// sent as "gone": the side records it as seen, its subscribers count it as
// lost at once (even the end of a stream, after which no gap would show).
#include <algorithm>

#include "agent/tree/tree_node.h"

namespace ftb::tree {

Interest TreeNode::interestFor(const std::string& link_address) const {
  std::vector<const Interest*> parts{&local_interest_};
  for (const auto& [address, link] : links_) {
    if (address != link_address) parts.push_back(&link.interest.interest());
  }
  return unionOf(parts);
}

void TreeNode::setLocalInterest(Interest interest, Nanos now) {
  std::sort(interest.begin(), interest.end());
  interest.erase(std::unique(interest.begin(), interest.end()), interest.end());
  if (interest == local_interest_) return;
  local_interest_ = std::move(interest);
  local_matcher_.assign(local_interest_);
  // A new subscription wants what is published from now on: no replay.
  propagateInterest("", {}, Nanos(0), now);
}

void TreeNode::propagateInterest(const std::string& except, const SeenVector& their_seen,
                                 Nanos replay_window, Nanos /*now*/) {
  if (links_.count(parent_address_) == 0) {
    unsent_interest_window_ = std::max(unsent_interest_window_, replay_window);
  }
  for (auto& [address, link] : links_) {
    if (address == except) continue;
    Interest ours = interestFor(address);
    if (ours == link.sent_interest) continue;
    InterestUpdate update{.interest = ours, .seen = {}, .replay_window = replay_window};
    if (replay_window > Nanos(0)) {
      InterestMatcher matcher;
      matcher.assign(ours);
      update.seen = relay_.report(matcher, their_seen);
    }
    link.sent_interest = std::move(ours);
    send(address, std::move(update));
  }
}

void TreeNode::onInterestUpdate(Link& link, const InterestUpdate& update, Nanos now) {
  if (update.replay_window == kFillRequest) return onFillRequest(link, update.seen);
  InterestMatcher before;
  before.assign(link.interest.interest());
  const bool grew = grows(before.interest(), update.interest);
  link.interest.assign(update.interest);
  if (grew) replayTo(link, update.seen, update.replay_window, &before, now);
  propagateInterest(link.node.address, update.seen, update.replay_window, now);
}

void TreeNode::replayTo(Link& link, const SeenVector& their_seen, Nanos replay_window,
                        const InterestMatcher* already_sent, Nanos now) {
  Replay replay = relay_.missing(link.interest, their_seen, replay_window, now, link.node.address);
  for (TreeEvent& event : replay.events) {
    // Events their old interest covered went to them live.
    if (already_sent != nullptr && !event.flood && already_sent->matches(event.event_space)) continue;
    ++stats_.events_replayed;
    queueEvent(link, event);
  }
  for (GoneEntry& gone : replay.gone) {
    if (already_sent != nullptr && already_sent->matches(gone.event_space)) continue;
    link.gone.push_back(std::move(gone));
  }
}

// ---- filling gaps ----
//
// A replay at a repair covers what the two sides report; a gap it cannot see
// (a part of the side that missed events its new neighbour never had) shows
// at the subscriber as events waiting in LocalOrder. The subscriber asks the
// way its publisher's events come from; each agent on that way resends what
// it retains and passes the rest of the request on toward the publisher,
// which retains its own events. The fills return along the same links.

void TreeNode::requestFills(Nanos now) {
  std::map<std::string, SeenVector> by_link;
  for (SeenEntry& gap : local_order_.gaps(now, config_.heartbeat_interval)) {
    const std::string to = towardPublisher(gap.publisher, "");
    if (!to.empty()) by_link[to].push_back(std::move(gap));
  }
  for (auto& [address, wanted] : by_link) sendFillRequest(address, std::move(wanted));
}

std::string TreeNode::towardPublisher(const std::string& publisher, const std::string& asker) const {
  const std::optional<std::string> from = relay_.upstream(publisher);
  if (from && from->empty()) return "";  // we are the publisher
  // Unknown, or that link is gone: try upward.
  const std::string to = from && links_.count(*from) != 0 ? *from : parent_address_;
  return to == asker ? "" : to;
}

void TreeNode::sendFillRequest(const std::string& to, SeenVector wanted) {
  // The interest is unchanged; the window marks the update as a request.
  send(to, InterestUpdate{.interest = links_.at(to).sent_interest,
                          .seen = std::move(wanted),
                          .replay_window = kFillRequest});
}

void TreeNode::onFillRequest(Link& link, SeenVector wanted) {
  Replay replay = relay_.fill(wanted);
  for (TreeEvent& event : replay.events) {
    ++stats_.events_replayed;
    queueEvent(link, event);
  }
  // Gone here is gone further up too: a fill would be dropped here as a duplicate.
  for (GoneEntry& gone : replay.gone) link.gone.push_back(std::move(gone));
  std::map<std::string, SeenVector> onward;
  for (SeenEntry& entry : wanted) {
    if (entry.holes.empty()) continue;
    const std::string to = towardPublisher(entry.publisher, link.node.address);
    if (!to.empty()) onward[to].push_back(std::move(entry));
  }
  for (auto& [address, rest] : onward) sendFillRequest(address, std::move(rest));
}

bool TreeNode::publishLocal(const TreeEvent& event, Nanos now) {
  if (!relay_.admit(event, "", now)) return false;
  forward(event, "");
  return true;
}

void TreeNode::onEvents(Link& link, const EventBatch& batch, Nanos now) {
  const std::string from = link.node.address;  // `link` may move: forward() only appends
  // Gone first: its losses are reported before what followed them.
  for (const GoneEntry& gone : batch.gone) onGone(gone, from, now);
  for (const TreeEvent& event : batch.events) {
    if (!relay_.admit(event, from, now)) continue;
    deliverInOrder(event, now);
    forward(event, from);
  }
}

void TreeNode::deliverInOrder(const TreeEvent& event, Nanos now) {
  if (!local_matcher_.matches(event.event_space)) {
    // Only passing through: no local subscriber wants its namespace, so the
    // host need not even parse it. A response may still be for a local requester.
    if (event.flood) host_.deliverLocal(event);
    return;
  }
  std::vector<TreeEvent> ready;
  const auto lost = local_order_.arrive(event, now, ready);
  release(lost, ready);
}

void TreeNode::onGone(const GoneEntry& gone, const std::string& from, Nanos now) {
  // Only what is news here goes on: the rest was seen, or reported, already.
  const GoneEntry fresh{gone.publisher, gone.event_space, relay_.settle(gone, from, now)};
  if (fresh.ranges.empty()) return;
  if (local_matcher_.matches(fresh.event_space)) {
    std::vector<TreeEvent> ready;
    const auto lost = local_order_.settle(fresh, ready);
    release(lost, ready);
  }
  for (auto& [address, link] : links_) {
    if (address != from && link.interest.matches(fresh.event_space)) link.gone.push_back(fresh);
  }
}

void TreeNode::expireGaps(Nanos now) {
  std::vector<TreeEvent> ready;
  const auto lost = local_order_.expire(now, reorderHold(), ready);
  release(lost, ready);
}

void TreeNode::release(const std::vector<LocalOrder::Loss>& lost, const std::vector<TreeEvent>& ready) {
  // Tell local subscribers of the loss before they see what followed it.
  for (const auto& loss : lost) {
    stats_.events_lost += loss.events;
    host_.eventsLost(loss.event_space, loss.events, loss.cause);
  }
  for (const TreeEvent& e : ready) host_.deliverLocal(e);
}

void TreeNode::forward(const TreeEvent& event, const std::string& except) {
  for (auto& [address, link] : links_) {
    if (address == except) continue;
    if (event.flood || link.interest.matches(event.event_space)) queueEvent(link, event);
  }
}

void TreeNode::queueEvent(Link& link, const TreeEvent& event) {
  link.batch.push_back(event);
  ++stats_.events_forwarded;
  if (link.batch.size() >= config_.max_batch_events) sendBatch(link);
}

void TreeNode::sendBatch(Link& link) {
  send(link.node.address, EventBatch{std::move(link.batch), std::move(link.gone)});
  link.batch.clear();
  link.gone.clear();
}

void TreeNode::flush() {
  for (auto& [address, link] : links_) {
    if (!link.batch.empty() || !link.gone.empty()) sendBatch(link);
  }
}

}  // namespace ftb::tree
