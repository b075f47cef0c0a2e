#include "agent/sessions/outbound_queue.h"

namespace ftb::agent {

bool OutboundQueue::push(std::string frame, uint32_t events) {
  if (events > 0 && queued_events_ + events > capacity_events_ && !frames_.empty()) return false;
  queued_events_ += events;
  if (events == 0) queued_reply_bytes_ += frame.size();
  frames_.push_back({std::move(frame), events});
  return true;
}

void OutboundQueue::pop() {
  queued_events_ -= frames_.front().events;
  if (frames_.front().events == 0) queued_reply_bytes_ -= frames_.front().frame.size();
  frames_.pop_front();
}

}  // namespace ftb::agent
