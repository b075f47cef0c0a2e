#include "agent/tree/relay_log.h"

#include <algorithm>

namespace ftb::tree {
namespace {

// Gaps kept per publisher; older ones are given up (their events are past
// replay anyway once the retention has moved on).
constexpr std::size_t kMaxHoles = 64;

// Sorted, with overlapping and adjacent ranges merged.
std::vector<SeqRange> normalized(std::vector<SeqRange> ranges) {
  std::erase_if(ranges, [](const SeqRange& r) { return r.first > r.second; });
  std::sort(ranges.begin(), ranges.end());
  std::vector<SeqRange> merged;
  for (const SeqRange& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

void capHoles(std::vector<SeqRange>& holes) {
  if (holes.size() > kMaxHoles) holes.erase(holes.begin(), holes.end() - kMaxHoles);
}

// Sorted sequences as ranges.
std::vector<SeqRange> rangesOf(std::vector<uint64_t> seqs) {
  std::sort(seqs.begin(), seqs.end());
  std::vector<SeqRange> out;
  for (uint64_t seq : seqs) {
    if (!out.empty() && seq <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, seq);
    } else {
      out.push_back({seq, seq});
    }
  }
  return out;
}

}  // namespace

bool contains(const std::vector<SeqRange>& ranges, uint64_t value) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), value,
                             [](uint64_t v, const SeqRange& r) { return v < r.first; });
  return it != ranges.begin() && std::prev(it)->second >= value;
}

void addRange(std::vector<SeqRange>& ranges, SeqRange range) {
  if (range.first > range.second) return;
  ranges.push_back(range);
  ranges = normalized(std::move(ranges));
  capHoles(ranges);
}

std::vector<SeqRange> subtractRanges(const std::vector<SeqRange>& a, const std::vector<SeqRange>& b) {
  std::vector<SeqRange> out;
  std::size_t j = 0;
  for (const auto& [first, last] : a) {
    while (j < b.size() && b[j].second < first) ++j;
    uint64_t from = first;
    bool rest = true;
    for (std::size_t k = j; k < b.size() && b[k].first <= last; ++k) {
      if (b[k].first > from) out.push_back({from, b[k].first - 1});
      if (b[k].second >= last) {
        rest = false;
        break;
      }
      from = std::max(from, b[k].second + 1);
    }
    if (rest) out.push_back({from, last});
  }
  return out;
}

std::vector<SeqRange> intersectRanges(const std::vector<SeqRange>& a, const std::vector<SeqRange>& b) {
  return subtractRanges(a, subtractRanges(a, b));
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
  Sequence& s = sequenceOf(event.publisher);
  if (!admitSequence(s, event.seq)) {
    ++duplicates_;
    return false;
  }
  if (s.event_space.empty()) s.event_space = event.event_space;
  if (s.from != from) s.from = from;
  s.updated = now;
  retain(s, event, from, now);
  return true;
}

RelayLog::Sequence& RelayLog::sequenceOf(const std::string& publisher) {
  if (last_sequence_ == nullptr || *last_publisher_ != publisher) {
    auto& entry = *sequences_.try_emplace(publisher).first;  // nodes: stable addresses
    last_publisher_ = &entry.first;
    last_sequence_ = &entry.second;
  }
  return *last_sequence_;
}

std::shared_ptr<const std::string> RelayLog::internFrom(const std::string& from) {
  if (last_from_ && *last_from_ == from) return last_from_;
  auto& name = from_names_[from];
  if (!name) name = std::make_shared<const std::string>(from);
  last_from_ = name;
  return name;
}

void RelayLog::retain(Sequence& s, const TreeEvent& event, const std::string& from, Nanos now) {
  if (max_events_ == 0 || max_bytes_ == 0) return;
  if (!s.source || s.source->event_space != event.event_space) {
    s.source = std::make_shared<const Source>(Source{event.publisher, event.event_space});
  }
  Entry entry{s.source, internFrom(from), event.bytes, event.seq, now, event.flood};
  bytes_ += costOf(entry);
  events_.push_back(std::move(entry));
  while (!events_.empty() && (events_.size() > max_events_ || bytes_ > max_bytes_)) popOldest();
}

void RelayLog::popOldest() {
  bytes_ -= costOf(events_.front());
  events_.pop_front();
}

void RelayLog::prune(Nanos now) {
  while (!events_.empty() && now - events_.front().arrived > max_age_) popOldest();
  // A publisher quiet for twice the retention age can no longer have
  // duplicates in flight.
  std::erase_if(sequences_, [&](const auto& entry) { return now - entry.second.updated > 2 * max_age_; });
  last_publisher_ = nullptr;
  last_sequence_ = nullptr;
  // Addresses no retained event refers to any more (links gone).
  std::erase_if(from_names_, [&](const auto& entry) {
    return entry.second.use_count() == 1 + (entry.second == last_from_ ? 1 : 0);
  });
  if (last_from_ && last_from_.use_count() == 1) last_from_.reset();
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

std::vector<SeqRange> RelayLog::goneOf(const Sequence& s, const std::vector<SeqRange>& wanted,
                                      const std::vector<uint64_t>& retained) {
  if (s.high == 0) return {};
  const std::vector<SeqRange> seen = subtractRanges({{s.low, s.high}}, s.holes);
  return subtractRanges(intersectRanges(normalized(wanted), seen), rangesOf(retained));
}

Replay RelayLog::missing(const InterestMatcher& interest, const SeenVector& their_seen, Nanos window,
                         Nanos now, const std::string& not_from) const {
  Replay out;
  if (window <= Nanos(0)) return out;
  std::unordered_map<std::string, const SeenEntry*> theirs;
  for (const SeenEntry& e : their_seen) theirs[e.publisher] = &e;
  std::unordered_map<std::string, std::vector<uint64_t>> kept;  // retained, of publishers they reported
  for (const Entry& e : events_) {
    const std::string& publisher = e.source->publisher;
    auto it = theirs.find(publisher);
    if (it != theirs.end()) kept[publisher].push_back(e.seq);
    if (!not_from.empty() && *e.from == not_from) continue;
    if (!e.flood && !interest.matches(e.source->event_space)) continue;
    const bool lacks = it != theirs.end()
                           ? e.seq > it->second->high || contains(it->second->holes, e.seq)
                           : now - e.arrived <= window;
    if (lacks) out.events.push_back(e.toEvent());
  }
  for (const SeenEntry& their : their_seen) {
    auto it = sequences_.find(their.publisher);
    if (it == sequences_.end()) continue;
    const Sequence& s = it->second;
    // A publisher whose events come from them: they are nearer to it than we are.
    if (!interest.matches(s.event_space) || (!not_from.empty() && s.from == not_from)) continue;
    std::vector<SeqRange> wanted = their.holes;
    if (s.high > their.high) wanted.push_back({their.high + 1, s.high});
    std::vector<SeqRange> gone = goneOf(s, wanted, kept[their.publisher]);
    if (!gone.empty()) out.gone.push_back({their.publisher, s.event_space, std::move(gone)});
  }
  return out;
}

Replay RelayLog::fill(SeenVector& wanted) const {
  Replay out;
  std::unordered_map<std::string, SeenEntry*> by_publisher;
  for (SeenEntry& e : wanted) by_publisher[e.publisher] = &e;
  for (const Entry& e : events_) {
    auto it = by_publisher.find(e.source->publisher);
    if (it == by_publisher.end() || !contains(it->second->holes, e.seq)) continue;
    removeValue(it->second->holes, e.seq);
    out.events.push_back(e.toEvent());
  }
  // What is still wanted and was seen here is no longer retained.
  for (SeenEntry& e : wanted) {
    auto it = sequences_.find(e.publisher);
    if (it == sequences_.end()) continue;
    std::vector<SeqRange> gone = goneOf(it->second, e.holes, {});
    if (gone.empty()) continue;
    e.holes = subtractRanges(normalized(e.holes), gone);
    out.gone.push_back({e.publisher, it->second.event_space, std::move(gone)});
  }
  return out;
}

std::vector<SeqRange> RelayLog::settle(const GoneEntry& gone, const std::string& from, Nanos now) {
  const std::vector<SeqRange> ranges = normalized(gone.ranges);
  if (ranges.empty() || ranges.front().first == 0) return {};  // sequences start at 1
  Sequence& s = sequences_[gone.publisher];
  const bool unknown = s.high == 0;
  std::vector<SeqRange> seen;
  if (!unknown) seen = subtractRanges({{s.low, s.high}}, s.holes);
  std::vector<SeqRange> fresh = subtractRanges(ranges, seen);
  if (fresh.empty()) return fresh;
  seen.insert(seen.end(), ranges.begin(), ranges.end());
  seen = normalized(std::move(seen));
  s.low = seen.front().first;
  s.high = seen.back().second;
  s.holes = subtractRanges({{s.low, s.high}}, seen);
  capHoles(s.holes);
  if (s.event_space.empty()) s.event_space = gone.event_space;
  if (unknown) s.from = from;  // the way toward the publisher
  s.updated = now;
  return fresh;
}

std::optional<std::string> RelayLog::upstream(const std::string& publisher) const {
  auto it = sequences_.find(publisher);
  if (it == sequences_.end()) return std::nullopt;
  return it->second.from;
}

}  // namespace ftb::tree
