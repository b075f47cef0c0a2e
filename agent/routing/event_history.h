// A bounded window of recent events (by count, by bytes and by age) that clients
// can ask to have replayed when they subscribe, like PMIx's cache for late handlers.
// It keeps a reference to each event's serialized bytes only: the one buffer the
// delivery path and the tree's RelayLog share (no copy, no parsed proto kept);
// replays are rare, routing is not, so a replay re-parses.
// Threading: owned and used by the agent's event-loop thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/security/admission.h"
#include "client/filter.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// An event's serialized bytes, immutable once accepted, shared by every store
// and queue that holds the event.
using SharedBytes = std::shared_ptr<const std::string>;

// An accepted event, parsed once, with the bytes forwarded to subscribers.
// The parsed form lives only while the event is routed (or replayed). The
// verified sender is always in the bytes; the parsed form of a local
// publisher's event lacks it (routing reads no sender).
struct RoutedEvent {
  proto::Event event;
  SharedBytes bytes;
  std::chrono::steady_clock::time_point arrived;
};

using RoutedEventPtr = std::shared_ptr<const RoutedEvent>;

// What one retained event counts against a byte bound: its bytes plus what
// keeping them costs besides (the record, the shared buffer's control block and
// string, allocator headers). An estimate that keeps the bound close to RSS.
inline constexpr std::size_t kRetainedEventOverhead = 96;
inline std::size_t retainedCost(const std::string* bytes) {
  return (bytes ? bytes->size() : 0) + kRetainedEventOverhead;
}

class EventHistory {
 public:
  // 0 events or 0 bytes disables the history.
  EventHistory(std::size_t max_events, std::size_t max_bytes, std::chrono::seconds max_age);

  void add(const RoutedEventPtr& event);
  void prune(std::chrono::steady_clock::time_point now);
  // New bounds (configuration reload); the oldest events beyond them go at once.
  void setLimits(std::size_t max_events, std::size_t max_bytes, std::chrono::seconds max_age);

  // Matching events that arrived after the one with id `since`, oldest first.
  // *found is false when `since` is no longer (or never was) retained; then every
  // retained matching event is returned.
  std::vector<RoutedEventPtr> since(const proto::EventId& since, const Filter& filter,
                                    bool* found) const;
  // The newest `n` matching events, oldest first.
  std::vector<RoutedEventPtr> lastN(std::size_t n, const Filter& filter) const;

  std::size_t size() const { return events_.size(); }
  // What the retained events count against the byte bound (see retainedCost).
  std::size_t retainedBytes() const { return bytes_; }
  // Id of the newest retained event, if any.
  std::optional<proto::EventId> newestId() const;

 private:
  struct Entry {
    SharedBytes bytes;
    std::chrono::steady_clock::time_point arrived;
  };
  static RoutedEventPtr parse(const Entry& entry);
  void popOldest();
  void trim();  // to max_events_ and max_bytes_

  std::size_t max_events_;
  std::size_t max_bytes_;
  std::chrono::seconds max_age_;
  std::deque<Entry> events_;  // oldest first; 24-byte records in blocks, no node per event
  std::size_t bytes_ = 0;
};

bool sameEventId(const proto::EventId& a, const proto::EventId& b);

// `events` (oldest first) that `who` may see (Admission::maySee, for the
// event's namespace and the one it tells of), at most the newest `keep`: what a
// subscribe-time replay and the history query hand out.
std::vector<RoutedEventPtr> visibleTo(const Admission& admission, const Principal& who,
                                      std::vector<RoutedEventPtr> events, std::size_t keep);

}  // namespace ftb::agent
