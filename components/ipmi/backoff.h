// Backoff: the wait before the next attempt to reach a BMC, doubling from
// `min` up to `max`; reset() after a success.
#pragma once

#include <algorithm>
#include <chrono>

namespace ftb::ipmi {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds min, std::chrono::milliseconds max)
      : min_(min), max_(std::max(min, max)), next_(min) {}

  std::chrono::milliseconds next() {
    const auto wait = next_;
    next_ = std::min(max_, next_ * 2);
    return wait;
  }
  void reset() { next_ = min_; }

 private:
  std::chrono::milliseconds min_, max_, next_;
};

}  // namespace ftb::ipmi
