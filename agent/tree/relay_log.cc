#include "agent/tree/relay_log.h"

#include <algorithm>

namespace ftb::tree {
namespace {

// Gaps kept per publisher; older ones are given up (their events are past
// replay anyway once the retention has moved on).
constexpr std::size_t kMaxHoles = 64;

}  // namespace

bool contains(const std::vector<SeqRange>& ranges, uint64_t value) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), value,
                             [](uint64_t v, const SeqRange& r) { return v < r.first; });
  return it != ranges.begin() && std::prev(it)->second >= value;
}

void addRange(std::vector<SeqRange>& ranges, SeqRange range) {
  if (range.first > range.second) return;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end());
  std::vector<SeqRange> merged;
  for (const SeqRange& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  if (merged.size() > kMaxHoles) merged.erase(merged.begin(), merged.end() - kMaxHoles);
  ranges = std::move(merged);
}

void removeValue(std::vector<SeqRange>& ranges, uint64_t value) {
  for (auto it = ranges.begin(); it != ranges.end(); ++it) {
    if (value < it->first || value > it->second) continue;
    if (it->first == it->second) {
      ranges.erase(it);
    } else if (value == it->first) {
      ++it->first;
    } else if (value == it->second) {
      --it->second;
    } else {
      const SeqRange upper{value + 1, it->second};
      it->second = value - 1;
      ranges.insert(it + 1, upper);
    }
    return;
  }
}

bool RelayLog::admitSequence(Sequence& s, uint64_t seq) {
  if (s.high == 0) {  // first sight of this publisher
    s.low = s.high = seq;
    return true;
  }
  if (seq > s.high) {
    addRange(s.holes, {s.high + 1, seq - 1});
    s.high = seq;
    return true;
  }
  if (seq < s.low) {
    // Older than anything seen here: a replay on its way to a side that needs
    // it, the first of a run that will fill up to what was seen first.
    addRange(s.holes, {seq + 1, s.low - 1});
    s.low = seq;
    return true;
  }
  if (contains(s.holes, seq)) {
    removeValue(s.holes, seq);
    return true;
  }
  return false;
}

bool RelayLog::admit(const TreeEvent& event, const std::string& from, Nanos now) {
  Sequence& s = sequences_[event.publisher];
  if (!admitSequence(s, event.seq)) {
    ++duplicates_;
    return false;
  }
  if (s.event_space.empty()) s.event_space = event.event_space;
  s.from = from;
  s.updated = now;
  if (max_events_ > 0) {
    if (events_.size() >= max_events_) events_.pop_front();
    events_.push_back(Entry{event, from, now});
  }
  return true;
}

void RelayLog::prune(Nanos now) {
  while (!events_.empty() && now - events_.front().arrived > max_age_) events_.pop_front();
  // A publisher quiet for twice the retention age can no longer have
  // duplicates in flight.
  std::erase_if(sequences_, [&](const auto& entry) { return now - entry.second.updated > 2 * max_age_; });
}

SeenVector RelayLog::report(const InterestMatcher& interest, const SeenVector& beyond) const {
  SeenVector out;
  for (const auto& [publisher, s] : sequences_) {
    if (interest.matches(s.event_space)) out.push_back({publisher, s.high, s.holes});
  }
  std::sort(out.begin(), out.end());
  for (const SeenEntry& theirs : beyond) {
    auto it = std::lower_bound(out.begin(), out.end(), SeenEntry{theirs.publisher, 0, {}});
    if (it == out.end() || it->publisher != theirs.publisher) {
      out.insert(it, theirs);
      continue;
    }
    const Sequence& mine = sequences_.at(theirs.publisher);
    for (const SeqRange& hole : theirs.holes) addRange(it->holes, hole);
    if (theirs.high + 1 < mine.low) addRange(it->holes, {theirs.high + 1, mine.low - 1});
  }
  return out;
}

std::vector<TreeEvent> RelayLog::missing(const InterestMatcher& interest,
                                         const SeenVector& their_seen, Nanos window, Nanos now,
                                         const std::string& not_from) const {
  std::vector<TreeEvent> out;
  if (window <= Nanos(0)) return out;
  std::unordered_map<std::string, const SeenEntry*> theirs;
  for (const SeenEntry& e : their_seen) theirs[e.publisher] = &e;
  for (const Entry& e : events_) {
    if (e.from == not_from && !not_from.empty()) continue;
    if (!e.event.flood && !interest.matches(e.event.event_space)) continue;
    auto it = theirs.find(e.event.publisher);
    const bool lacks = it != theirs.end()
                           ? e.event.seq > it->second->high || contains(it->second->holes, e.event.seq)
                           : now - e.arrived <= window;
    if (lacks) out.push_back(e.event);
  }
  return out;
}

std::vector<TreeEvent> RelayLog::fill(SeenVector& wanted) const {
  std::vector<TreeEvent> out;
  std::unordered_map<std::string, SeenEntry*> by_publisher;
  for (SeenEntry& e : wanted) by_publisher[e.publisher] = &e;
  for (const Entry& e : events_) {
    auto it = by_publisher.find(e.event.publisher);
    if (it == by_publisher.end() || !contains(it->second->holes, e.event.seq)) continue;
    removeValue(it->second->holes, e.event.seq);
    out.push_back(e.event);
  }
  return out;
}

std::optional<std::string> RelayLog::upstream(const std::string& publisher) const {
  auto it = sequences_.find(publisher);
  if (it == sequences_.end()) return std::nullopt;
  return it->second.from;
}

}  // namespace ftb::tree
