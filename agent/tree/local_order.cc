#include "agent/tree/local_order.h"

#include <algorithm>

#include "agent/tree/relay_log.h"

namespace ftb::tree {

uint64_t LocalOrder::drain(Stream& s, std::vector<TreeEvent>& ready) {
  uint64_t lost = 0;
  for (;;) {
    while (!s.gone.empty() && s.gone.front().second < s.next) s.gone.erase(s.gone.begin());
    if (!s.waiting.empty() && s.waiting.begin()->first <= s.next) {
      if (s.waiting.begin()->first == s.next) {
        ready.push_back(std::move(s.waiting.begin()->second));
        ++s.next;
      }
      s.waiting.erase(s.waiting.begin());
      continue;
    }
    if (s.gone.empty() || s.gone.front().first > s.next) break;
    // `next` will never come: step over the gone range. An event waiting
    // inside it did come after all (by another way): delivered, not lost.
    const uint64_t last = s.gone.front().second;
    for (auto it = s.waiting.begin(); it != s.waiting.end() && it->first <= last;) {
      lost += it->first - s.next;
      ready.push_back(std::move(it->second));
      s.next = it->first + 1;
      it = s.waiting.erase(it);
    }
    lost += last + 1 - s.next;
    s.next = last + 1;
    s.gone.erase(s.gone.begin());
  }
  return lost;
}

std::vector<LocalOrder::Loss> LocalOrder::arrive(const TreeEvent& event, Nanos now,
                                                 std::vector<TreeEvent>& ready) {
  auto [it, fresh] = streams_.try_emplace(event.publisher);
  Stream& s = it->second;
  s.updated = now;
  if (fresh) s.next = event.seq;
  if (s.event_space.empty()) s.event_space = event.event_space;
  std::vector<Loss> lost;
  if (event.seq == s.next) {
    ready.push_back(event);
    ++s.next;
    if (const uint64_t n = drain(s, ready)) lost.push_back({s.event_space, n});
    if (s.waiting.empty()) s.waiting_since = Nanos(0);
  } else if (event.seq > s.next) {
    if (s.waiting.empty()) s.waiting_since = now;
    s.waiting.emplace(event.seq, event);
  }
  // Behind `next`: delivering it now would break the order its subscribers
  // rely on (a late fill was counted as lost when its gap was given up).
  return lost;
}

std::vector<LocalOrder::Loss> LocalOrder::settle(const GoneEntry& gone, std::vector<TreeEvent>& ready) {
  auto it = streams_.find(gone.publisher);
  if (it == streams_.end()) return {};
  Stream& s = it->second;
  if (s.event_space.empty()) s.event_space = gone.event_space;
  for (const auto& [first, last] : gone.ranges) {
    if (last >= s.next) addRange(s.gone, {std::max(first, s.next), last});
  }
  const uint64_t n = drain(s, ready);
  if (s.waiting.empty()) s.waiting_since = Nanos(0);
  if (n == 0) return {};
  return {{s.event_space, n}};
}

std::vector<LocalOrder::Loss> LocalOrder::expire(Nanos now, Nanos stretched, std::vector<TreeEvent>& ready) {
  const Nanos hold = std::max(hold_timeout_, stretched);
  std::vector<Loss> lost;
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& s = it->second;
    if (!s.waiting.empty() && now - s.waiting_since > hold) {
      const uint64_t first_waiting = s.waiting.begin()->first;
      const uint64_t skipped = first_waiting - s.next;
      s.next = first_waiting;
      lost.push_back({s.event_space, skipped, LossCause::kNotFilledInTime});
      if (const uint64_t gone = drain(s, ready)) lost.push_back({s.event_space, gone});
      s.waiting_since = s.waiting.empty() ? Nanos(0) : now;
    }
    // Streams quiet for long are forgotten (a publisher that went away).
    if (s.waiting.empty() && now - s.updated > 100 * hold_timeout_) {
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
  return lost;
}

SeenVector LocalOrder::gaps(Nanos now, Nanos min_age) const {
  SeenVector out;
  for (const auto& [publisher, s] : streams_) {
    if (s.waiting.empty() || now - s.waiting_since < min_age) continue;
    SeenEntry entry{publisher, s.waiting.rbegin()->first, {}};
    uint64_t expected = s.next;
    for (const auto& [seq, event] : s.waiting) {
      if (seq > expected) entry.holes.push_back({expected, seq - 1});
      expected = seq + 1;
    }
    entry.holes = subtractRanges(entry.holes, s.gone);  // no use asking for those
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t LocalOrder::held() const {
  std::size_t n = 0;
  for (const auto& [publisher, s] : streams_) n += s.waiting.size();
  return n;
}

}  // namespace ftb::tree
