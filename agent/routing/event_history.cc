#include "agent/routing/event_history.h"

#include <algorithm>
#include <unordered_map>

namespace ftb::agent {

bool sameEventId(const proto::EventId& a, const proto::EventId& b) {
  return a.seq() == b.seq() && a.client_instance() == b.client_instance() &&
         a.origin().pid() == b.origin().pid() &&
         a.origin().process_start_ns() == b.origin().process_start_ns() &&
         a.origin().host() == b.origin().host();
}

EventHistory::EventHistory(std::size_t max_events, std::size_t max_bytes,
                           std::chrono::seconds max_age)
    : max_events_(max_events), max_bytes_(max_bytes), max_age_(max_age) {}

void EventHistory::add(const RoutedEventPtr& event) {
  if (max_events_ == 0 || max_bytes_ == 0 || !event->bytes) return;
  events_.push_back({event->bytes, event->arrived});
  bytes_ += retainedCost(event->bytes.get());
  trim();
}

void EventHistory::popOldest() {
  bytes_ -= retainedCost(events_.front().bytes.get());
  events_.pop_front();
}

void EventHistory::trim() {
  while (!events_.empty() && (events_.size() > max_events_ || bytes_ > max_bytes_)) popOldest();
}

void EventHistory::setLimits(std::size_t max_events, std::size_t max_bytes,
                             std::chrono::seconds max_age) {
  max_events_ = max_events;
  max_bytes_ = max_bytes;
  max_age_ = max_age;
  trim();
}

void EventHistory::prune(std::chrono::steady_clock::time_point now) {
  while (!events_.empty() && now - events_.front().arrived > max_age_) popOldest();
}

RoutedEventPtr EventHistory::parse(const Entry& entry) {
  auto routed = std::make_shared<RoutedEvent>();
  routed->event.ParseFromString(*entry.bytes);  // bytes the agent accepted: they parse
  routed->bytes = entry.bytes;
  routed->arrived = entry.arrived;
  return routed;
}

std::optional<proto::EventId> EventHistory::newestId() const {
  if (events_.empty()) return std::nullopt;
  proto::Event event;
  event.ParseFromString(*events_.back().bytes);
  return event.id();
}

std::vector<RoutedEventPtr> EventHistory::since(const proto::EventId& since, const Filter& filter,
                                                bool* found) const {
  std::size_t first = 0;
  *found = false;
  for (std::size_t i = events_.size(); i-- > 0;) {
    proto::Event event;
    event.ParseFromString(*events_[i].bytes);
    if (sameEventId(event.id(), since)) {
      *found = true;
      first = i + 1;
      break;
    }
  }
  std::vector<RoutedEventPtr> out;
  for (std::size_t i = first; i < events_.size(); ++i) {
    RoutedEventPtr e = parse(events_[i]);
    if (filter.matches(e->event)) out.push_back(std::move(e));
  }
  return out;
}

std::vector<RoutedEventPtr> EventHistory::lastN(std::size_t n, const Filter& filter) const {
  std::vector<RoutedEventPtr> out;
  for (auto it = events_.rbegin(); it != events_.rend() && out.size() < n; ++it) {
    RoutedEventPtr e = parse(*it);
    if (filter.matches(e->event)) out.push_back(std::move(e));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<RoutedEventPtr> visibleTo(const Admission& admission, const Principal& who,
                                      std::vector<RoutedEventPtr> events, std::size_t keep) {
  if (!admission.everyoneSeesEverything()) {
    std::unordered_map<std::string, bool> seen;  // namespace -> maySee, asked once per query
    const auto maySee = [&](std::string_view space) {
      auto [it, fresh] = seen.try_emplace(std::string(space), false);
      if (fresh) it->second = admission.maySee(who, it->first);
      return it->second;
    };
    std::erase_if(events, [&](const RoutedEventPtr& e) {
      const std::string_view told = namespaceToldOf(e->event);
      return !maySee(e->event.event_space()) || (!told.empty() && !maySee(told));
    });
  }
  if (events.size() > keep) events.erase(events.begin(), events.end() - static_cast<std::ptrdiff_t>(keep));
  return events;
}

}  // namespace ftb::agent
