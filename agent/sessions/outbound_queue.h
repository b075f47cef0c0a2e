// Frames waiting for one client whose ZeroMQ pipe is full, bounded by the
// number of events they hold. What does not fit is counted as missed and the
// count travels in the next Deliver that does get through (missed_before), so
// the subscriber always learns how many events it lost.
// Threading: the agent's event-loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace ftb::agent {

class OutboundQueue {
 public:
  explicit OutboundQueue(std::size_t capacity_events) : capacity_events_(capacity_events) {}

  // Queues a frame of `events` events; false when it does not fit (nothing
  // queued). A frame always fits an empty queue, and frames of 0 events
  // (replies) always fit, so they are never lost or reordered.
  bool push(std::string frame, uint32_t events);
  bool empty() const { return frames_.empty(); }
  // A new bound (configuration reload); frames already queued stay queued.
  void setCapacity(std::size_t capacity_events) { capacity_events_ = capacity_events; }
  const std::string& front() const { return frames_.front().frame; }
  void pop();

  std::size_t queuedEvents() const { return queued_events_; }
  // Bytes of the replies queued (frames of 0 events), which push never refuses:
  // the agent bounds them by ending a session that lets them pile up.
  std::size_t queuedReplyBytes() const { return queued_reply_bytes_; }

  // Missed events not yet reported to the client, in all ...
  uint64_t missedPending() const { return missed_pending_; }
  void addMissed(uint64_t events) { missed_pending_ += events; missed_total_ += events; }
  // ... and per subscription (an event that matched two subscriptions counts for both).
  void addMissedFor(uint32_t subscription_id, uint64_t events) {
    missed_by_subscription_[subscription_id] += events;
  }
  const std::map<uint32_t, uint64_t>& missedBySubscription() const {
    return missed_by_subscription_;
  }
  void clearMissedPending() {
    missed_pending_ = 0;
    missed_by_subscription_.clear();
  }
  uint64_t missedTotal() const { return missed_total_; }

 private:
  struct Entry {
    std::string frame;
    uint32_t events;
  };
  std::size_t capacity_events_;
  std::deque<Entry> frames_;
  std::size_t queued_events_ = 0;
  std::size_t queued_reply_bytes_ = 0;
  uint64_t missed_pending_ = 0;
  uint64_t missed_total_ = 0;
  std::map<uint32_t, uint64_t> missed_by_subscription_;
};

}  // namespace ftb::agent
