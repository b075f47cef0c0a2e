// The bounded queue behind one polling subscription. When it is full, new
// events are counted instead of queued, and a kMissed notification with that
// count is queued at the point of loss as soon as there is room again (or
// handed out once the queue drains), so a poller always learns what it lost.
// Threading: internally locked; the SDK's I/O thread pushes, callers pop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

#include "client/client.h"

namespace ftb {

class NotificationQueue {
 public:
  explicit NotificationQueue(std::size_t capacity) : capacity_(capacity) {}

  // Returns how many events were lost here (0 or 1).
  uint64_t push(Notification notification);
  std::optional<Notification> pop(std::chrono::milliseconds timeout);
  // Wakes waiting pollers (used on unsubscribe and shutdown).
  void close();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t capacity_;
  std::deque<Notification> queue_;
  uint64_t missed_ = 0;  // lost since the last kMissed notice was queued
  bool closed_ = false;
};

}  // namespace ftb
