#include "agent/event_history.h"

#include <algorithm>

namespace ftb::agent {

bool sameEventId(const proto::EventId& a, const proto::EventId& b) {
  return a.seq() == b.seq() && a.client_instance() == b.client_instance() &&
         a.origin().pid() == b.origin().pid() &&
         a.origin().process_start_ns() == b.origin().process_start_ns() &&
         a.origin().host() == b.origin().host();
}

EventHistory::EventHistory(std::size_t max_events, std::chrono::seconds max_age)
    : max_events_(max_events), max_age_(max_age) {}

void EventHistory::add(RoutedEventPtr event) {
  if (max_events_ == 0) return;
  if (events_.size() == max_events_) events_.pop_front();
  events_.push_back(std::move(event));
}

void EventHistory::prune(std::chrono::steady_clock::time_point now) {
  while (!events_.empty() && now - events_.front()->arrived > max_age_) events_.pop_front();
}

std::vector<RoutedEventPtr> EventHistory::since(const proto::EventId& since, const Filter& filter,
                                                bool* found) const {
  auto start = std::find_if(events_.rbegin(), events_.rend(), [&](const RoutedEventPtr& e) {
    return sameEventId(e->event.id(), since);
  });
  *found = start != events_.rend();
  auto first = *found ? start.base() : events_.begin();
  std::vector<RoutedEventPtr> out;
  for (auto it = first; it != events_.end(); ++it) {
    if (filter.matches((*it)->event)) out.push_back(*it);
  }
  return out;
}

std::vector<RoutedEventPtr> EventHistory::lastN(std::size_t n, const Filter& filter) const {
  std::vector<RoutedEventPtr> out;
  for (auto it = events_.rbegin(); it != events_.rend() && out.size() < n; ++it) {
    if (filter.matches((*it)->event)) out.push_back(*it);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace ftb::agent
