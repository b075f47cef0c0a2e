#include "tests/support/event_collector.h"

#include <algorithm>
#include <stdexcept>

#include "client/payload_fields.h"

namespace ftb::testing {

std::string field(const Event& event, const std::string& key) {
  return payloadField(event.payload, key);
}

EventCollector::EventCollector(const std::string& endpoint, const std::string& filter) {
  auto c = Client::connect(
      {.event_space = "FTB.TEST.COLLECTOR", .client_name = "event-collector", .agent_endpoint = endpoint});
  if (!c.ok()) throw std::runtime_error("collector connect: " + c.status().toString());
  client_ = std::move(c).value();
  auto id = client_->subscribe({.filter = filter, .polling = true});
  if (!id.ok()) throw std::runtime_error("collector subscribe: " + id.status().toString());
  subscription_ = *id;
}

void EventCollector::drain(std::chrono::milliseconds wait) {
  for (;;) {
    auto n = client_->poll(subscription_, wait);
    if (!n.ok() || !n->has_value()) return;
    if ((*n)->kind == Notification::Kind::kEvent) events_.push_back((*n)->event);
    wait = std::chrono::milliseconds(0);
  }
}

std::optional<std::size_t> EventCollector::waitForIndex(const EventPredicate& predicate,
                                                        std::chrono::milliseconds timeout,
                                                        std::size_t from) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t checked = from;
  for (;;) {
    for (; checked < events_.size(); ++checked) {
      if (predicate(events_[checked])) return checked;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    drain(std::min(left, std::chrono::milliseconds(20)));
  }
}

std::optional<Event> EventCollector::waitFor(const EventPredicate& predicate,
                                             std::chrono::milliseconds timeout, std::size_t from) {
  auto i = waitForIndex(predicate, timeout, from);
  if (!i) return std::nullopt;
  return events_[*i];
}

std::vector<Event> EventCollector::events() {
  drain(std::chrono::milliseconds(0));
  return events_;
}

std::size_t EventCollector::count(const EventPredicate& predicate, std::size_t from) {
  drain(std::chrono::milliseconds(0));
  std::size_t n = 0;
  for (std::size_t i = from; i < events_.size(); ++i) n += predicate(events_[i]) ? 1 : 0;
  return n;
}

}  // namespace ftb::testing
