#include "components/mpi_bridge/progress_watch.h"

#include <algorithm>

namespace ftb::mpi_bridge {
namespace {

// Enough phases that one short one (a rank that skipped work) does not
// tighten the bound, few enough that it follows a change of phase length.
constexpr std::size_t kRemembered = 16;

std::chrono::milliseconds ms(ProgressWatch::Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

}  // namespace

void ProgressWatch::entered(Clock::time_point now) {
  if (computing_since_) {
    recent_.push_back(now - *computing_since_);
    if (recent_.size() > kRemembered) recent_.pop_front();
    if (reported_) resumed_after_ = ms(now - *computing_since_);
  }
  computing_since_.reset();
  reported_ = false;
}

void ProgressWatch::left(Clock::time_point now, long iteration) {
  computing_since_ = now;
  iteration_ = iteration;
}

std::chrono::milliseconds ProgressWatch::currentBound() const {
  const Clock::duration longest = recent_.empty() ? Clock::duration{0} : *std::max_element(recent_.begin(), recent_.end());
  return std::max(bound_.floor, ms(std::chrono::duration_cast<Clock::duration>(longest * bound_.factor)));
}

std::optional<Stall> ProgressWatch::newStall(Clock::time_point now) {
  if (!computing_since_ || recent_.empty() || reported_) return std::nullopt;
  const auto stalled = ms(now - *computing_since_);
  const auto bound = currentBound();
  if (stalled <= bound) return std::nullopt;
  reported_ = true;
  return Stall{.stalled = stalled,
               .bound = bound,
               .iteration = ms(*std::max_element(recent_.begin(), recent_.end())),
               .iteration_number = iteration_};
}

std::optional<std::chrono::milliseconds> ProgressWatch::takeResumed() {
  auto out = resumed_after_;
  resumed_after_.reset();
  return out;
}

}  // namespace ftb::mpi_bridge
