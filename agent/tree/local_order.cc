#include "agent/tree/local_order.h"

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
  if (fresh) {
    s.first = event.seq;
    s.next = event.seq + 1;
    ready.push_back(event);
    return;
  }
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
    return;
  }
  // Behind `next`: older than local interest, or a gap given up on that was
  // filled after all (then late is better than never).
  if (event.seq >= s.first) ready.push_back(event);
}

uint64_t LocalOrder::expire(Nanos now, std::vector<TreeEvent>& ready) {
  uint64_t lost = 0;
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& s = it->second;
    if (!s.waiting.empty() && now - s.waiting_since > hold_timeout_) {
      lost += s.waiting.begin()->first - s.next;
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

std::size_t LocalOrder::held() const {
  std::size_t n = 0;
  for (const auto& [publisher, s] : streams_) n += s.waiting.size();
  return n;
}

}  // namespace ftb::tree
