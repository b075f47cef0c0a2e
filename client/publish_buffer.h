// Events a client has published and the agent has not yet acknowledged, in
// sequence order. They are re-sent after a reconnect, so an agent restart
// loses nothing that fits in the buffer.
// Threading: internally locked; publishers and the SDK's I/O thread share it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "client/status.h"

namespace ftb {

class PublishBuffer {
 public:
  explicit PublishBuffer(std::size_t capacity) : capacity_(capacity) {}

  // Assigns the next sequence number, lets `encode(seq)` build the bytes and
  // keeps them. kResourceExhausted when `capacity` events are unacknowledged,
  // at once when `wait_for_room` is 0; otherwise the caller blocks until there
  // is room, and fails only once the agent has acknowledged nothing for
  // `wait_for_room` (every acknowledgement restarts that wait).
  template <typename Encode>
  Result<uint64_t> append(Encode&& encode,
                          std::chrono::milliseconds wait_for_room = std::chrono::milliseconds(0)) {
    std::unique_lock lock(mu_);
    if (events_.size() >= capacity_ && wait_for_room.count() > 0) {
      for (uint64_t seen = acked_; events_.size() >= capacity_; seen = acked_) {
        const bool moved = acked_cv_.wait_for(
            lock, wait_for_room, [&] { return events_.size() < capacity_ || acked_ != seen; });
        if (!moved) {
          return resourceExhausted("publish buffer full: " + std::to_string(capacity_) +
                                   " events not yet acknowledged, and the agent acknowledged none for " +
                                   std::to_string(wait_for_room.count()) +
                                   " ms (is it reachable?); retry later");
        }
      }
    }
    if (events_.size() >= capacity_) {
      return resourceExhausted("publish buffer full: " + std::to_string(capacity_) +
                               " events not yet acknowledged by the agent (is it reachable?); "
                               "retry later, raise ClientOptions::publish_buffer_events or set "
                               "ClientOptions::publish_wait_for_room");
    }
    const uint64_t seq = next_seq_++;
    events_.push_back({seq, encode(seq)});
    return seq;
  }

  // Everything with seq <= `seq` is safe at the agent.
  void acknowledge(uint64_t seq);
  // Up to `max_events`/`max_bytes` events from `*cursor` on; advances *cursor.
  std::vector<std::string> takeFrom(uint64_t* cursor, std::size_t max_events,
                                    std::size_t max_bytes) const;
  // The first unacknowledged sequence number (where a resend starts).
  uint64_t firstUnacked() const;
  uint64_t lastAssigned() const;
  uint64_t acked() const;
  bool waitAcked(uint64_t seq, std::chrono::milliseconds timeout);

 private:
  struct Entry {
    uint64_t seq;
    std::string bytes;
  };
  mutable std::mutex mu_;
  std::condition_variable acked_cv_;
  std::size_t capacity_;
  std::deque<Entry> events_;
  uint64_t next_seq_ = 1;
  uint64_t acked_ = 0;
};

}  // namespace ftb
