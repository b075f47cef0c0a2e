#include "client/notification_queue.h"

namespace ftb {

uint64_t NotificationQueue::push(Notification notification) {
  uint64_t lost = 0;
  {
    std::lock_guard lock(mu_);
    const uint64_t incoming = notification.kind == Notification::Kind::kMissed
                                  ? notification.missed
                                  : 0;
    if (notification.kind == Notification::Kind::kMissed) {
      missed_ += incoming;  // merge with any local loss; queued below when there is room
    } else if (queue_.size() >= capacity_) {
      ++missed_;
      lost = 1;
    } else {
      if (missed_ > 0) {
        queue_.push_back({.kind = Notification::Kind::kMissed, .event = {}, .missed = missed_});
        missed_ = 0;
      }
      queue_.push_back(std::move(notification));
    }
  }
  cv_.notify_one();
  return lost;
}

std::optional<Notification> NotificationQueue::pop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || missed_ > 0 || closed_; });
  if (!queue_.empty()) {
    Notification n = std::move(queue_.front());
    queue_.pop_front();
    return n;
  }
  if (missed_ > 0) {
    Notification n{.kind = Notification::Kind::kMissed, .event = {}, .missed = missed_};
    missed_ = 0;
    return n;
  }
  return std::nullopt;
}

void NotificationQueue::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

}  // namespace ftb
