#include "agent/tree/local_order.h"

#include <algorithm>

namespace ftb::tree {

void LocalOrder::drain(Stream& s, std::vector<TreeEvent>& ready) {
  while (!s.waiting.empty() && s.waiting.begin()->first <= s.next) {
    if (s.waiting.begin()->first == s.next) {
      ready.push_back(std::move(s.waiting.begin()->second));
      ++s.next;
    }
    s.waiting.erase(s.waiting.begin());
  }
}

void LocalOrder::arrive(const TreeEvent& event, Nanos now, std::vector<TreeEvent>& ready) {
  auto [it, fresh] = streams_.try_emplace(event.publisher);
  Stream& s = it->second;
  s.updated = now;
  if (fresh) s.next = event.seq;
  if (event.seq == s.next) {
    ready.push_back(event);
    ++s.next;
    drain(s, ready);
    if (s.waiting.empty()) s.waiting_since = Nanos(0);
    return;
  }
  if (event.seq > s.next) {
    if (s.waiting.empty()) s.waiting_since = now;
    s.waiting.emplace(event.seq, event);
  }
  // Behind `next`: delivering it now would break the order its subscribers
  // rely on (a late fill was counted as lost when its gap was given up).
}

std::vector<LocalOrder::Loss> LocalOrder::expire(Nanos now, std::vector<TreeEvent>& ready) {
  std::vector<Loss> lost;
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& s = it->second;
    if (!s.waiting.empty() && now - s.waiting_since > hold_timeout_) {
      const auto& [first_waiting, event] = *s.waiting.begin();
      lost.push_back({event.event_space, first_waiting - s.next});
      s.next = s.waiting.begin()->first;
      drain(s, ready);
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
