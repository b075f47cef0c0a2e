#include "agent/loop/rate_limited_log.h"

#include "client/clock.h"

namespace ftb::agent {

bool RateLimitedLog::allow(const std::string& key) {
  const auto now = Clock::real().steadyNow();
  Window& w = windows_[key];
  if (now - w.start >= std::chrono::seconds(1)) {
    if (w.suppressed > 0) {
      spdlog::warn("{}: {} similar messages suppressed in the last second", key, w.suppressed);
    }
    w = Window{.start = now};
  }
  if (w.logged < per_second_) {
    ++w.logged;
    return true;
  }
  ++w.suppressed;
  return false;
}

}  // namespace ftb::agent
