// The one source of time of the agent and the SDK. Production code asks
// Clock::real() (the steady clock for timeouts and ages, the system clock for
// wall-clock stamps); tests hand the agent's parts (and an SDK client, through
// ClientImpl's constructor) a ManualClock and move time themselves, so nothing
// waits on real time.
//
//   ManualClock clock;
//   SessionTable table(clock);
//   clock.advance(std::chrono::seconds(5));
//
// Threading: Clock::real() may be used from any thread. A ManualClock is not
// synchronised: the test thread that advances it is the one that uses it.
#pragma once

#include <chrono>

namespace ftb {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point steadyNow() const = 0;
  virtual std::chrono::system_clock::time_point systemNow() const = 0;

  // steady_clock and system_clock themselves.
  static const Clock& real();
};

// Time that moves only when told (both clocks together).
class ManualClock final : public Clock {
 public:
  ManualClock()
      : steady_(std::chrono::steady_clock::time_point(std::chrono::hours(1))),
        system_(std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000))) {}

  std::chrono::steady_clock::time_point steadyNow() const override { return steady_; }
  std::chrono::system_clock::time_point systemNow() const override { return system_; }
  void advance(std::chrono::nanoseconds by) {
    steady_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(by);
    system_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(by);
  }

 private:
  std::chrono::steady_clock::time_point steady_;
  std::chrono::system_clock::time_point system_;
};

}  // namespace ftb
