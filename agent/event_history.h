// A bounded window of recent events (by count and by age) that clients can ask
// to have replayed when they subscribe, like PMIx's cache for late handlers.
// Threading: owned and used by the agent's event-loop thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/filter.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// An accepted event, parsed once, with the bytes forwarded to subscribers.
struct RoutedEvent {
  proto::Event event;
  std::string bytes;
  std::chrono::steady_clock::time_point arrived;
};

using RoutedEventPtr = std::shared_ptr<const RoutedEvent>;

class EventHistory {
 public:
  EventHistory(std::size_t max_events, std::chrono::seconds max_age);

  // Keeps a copy of the event's bytes only: replays are rare, routing is not,
  // so parsed events are freed right after routing and re-parsed on replay.
  void add(const RoutedEventPtr& event);
  void prune(std::chrono::steady_clock::time_point now);
  // New bounds (configuration reload); the oldest events beyond max_events go at once.
  void setLimits(std::size_t max_events, std::chrono::seconds max_age);

  // Matching events that arrived after the one with id `since`, oldest first.
  // *found is false when `since` is no longer (or never was) retained; then every
  // retained matching event is returned.
  std::vector<RoutedEventPtr> since(const proto::EventId& since, const Filter& filter,
                                    bool* found) const;
  // The newest `n` matching events, oldest first.
  std::vector<RoutedEventPtr> lastN(std::size_t n, const Filter& filter) const;

  std::size_t size() const { return events_.size(); }
  // Id of the newest retained event, if any.
  std::optional<proto::EventId> newestId() const;

 private:
  std::size_t max_events_;
  std::chrono::seconds max_age_;
  struct Entry {
    std::string bytes;
    std::chrono::steady_clock::time_point arrived;
  };
  static RoutedEventPtr parse(const Entry& entry);
  std::deque<Entry> events_;
};

bool sameEventId(const proto::EventId& a, const proto::EventId& b);

}  // namespace ftb::agent
