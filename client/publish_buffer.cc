#include "client/publish_buffer.h"

namespace ftb {

void PublishBuffer::acknowledge(uint64_t seq) {
  {
    std::lock_guard lock(mu_);
    if (seq <= acked_) return;
    acked_ = seq;
    while (!events_.empty() && events_.front().seq <= seq) events_.pop_front();
  }
  acked_cv_.notify_all();
}

std::vector<std::string> PublishBuffer::takeFrom(uint64_t* cursor, std::size_t max_events,
                                                 std::size_t max_bytes) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  if (events_.empty()) return out;
  if (*cursor < events_.front().seq) *cursor = events_.front().seq;
  std::size_t index = *cursor - events_.front().seq;
  std::size_t bytes = 0;
  while (index < events_.size() && out.size() < max_events && bytes < max_bytes) {
    bytes += events_[index].bytes.size();
    out.push_back(events_[index].bytes);
    ++index;
    ++*cursor;
  }
  return out;
}

uint64_t PublishBuffer::firstUnacked() const {
  std::lock_guard lock(mu_);
  return acked_ + 1;
}

uint64_t PublishBuffer::lastAssigned() const {
  std::lock_guard lock(mu_);
  return next_seq_ - 1;
}

uint64_t PublishBuffer::acked() const {
  std::lock_guard lock(mu_);
  return acked_;
}

bool PublishBuffer::waitAcked(uint64_t seq, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return acked_cv_.wait_for(lock, timeout, [&] { return acked_ >= seq; });
}

}  // namespace ftb
