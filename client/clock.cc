#include "client/clock.h"

namespace ftb {
namespace {

class RealClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point steadyNow() const override {
    return std::chrono::steady_clock::now();
  }
  std::chrono::system_clock::time_point systemNow() const override {
    return std::chrono::system_clock::now();
  }
};

}  // namespace

const Clock& Clock::real() {
  static const RealClock clock;
  return clock;
}

}  // namespace ftb
