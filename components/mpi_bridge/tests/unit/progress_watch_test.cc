// ProgressWatch: when a rank's next ftbckpt_loop call is overdue (progress_watch.h).
// The time is passed in: every case is exact.
#define BOOST_TEST_MODULE progress_watch_test
#include "components/mpi_bridge/progress_watch.h"

#include <boost/test/unit_test.hpp>

using ftb::mpi_bridge::ProgressWatch;
using ftb::mpi_bridge::StallBound;
using namespace std::chrono_literals;

namespace {

const ProgressWatch::Clock::time_point t0{};

// Loop calls at t0, t0 + phase, ... (each returning at once): n compute phases of `phase`.
ProgressWatch::Clock::time_point iterate(ProgressWatch& w, ProgressWatch::Clock::time_point at,
                                         std::chrono::milliseconds phase, int n) {
  for (int i = 0; i < n; ++i) {
    w.left(at, i);
    at += phase;
    w.entered(at);
  }
  w.left(at, n);
  return at;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_rank_is_stalled_past_factor_times_its_longest_phase) {
  ProgressWatch w(StallBound{.floor = 100ms, .factor = 3});
  auto at = iterate(w, t0, 400ms, 4);
  BOOST_CHECK(!w.newStall(at + 1200ms));  // exactly 3 phases: not yet
  auto stall = w.newStall(at + 1201ms);
  BOOST_REQUIRE(stall);
  BOOST_CHECK_EQUAL(stall->bound.count(), 1200);
  BOOST_CHECK_EQUAL(stall->iteration.count(), 400);
  BOOST_CHECK_EQUAL(stall->stalled.count(), 1201);
  BOOST_CHECK_EQUAL(stall->iteration_number, 4);
}

BOOST_AUTO_TEST_CASE(the_floor_bounds_short_phases) {
  ProgressWatch w(StallBound{.floor = 1000ms, .factor = 3});
  auto at = iterate(w, t0, 10ms, 5);
  BOOST_CHECK(!w.newStall(at + 999ms));
  BOOST_REQUIRE(w.newStall(at + 1001ms));
}

BOOST_AUTO_TEST_CASE(one_long_phase_among_short_ones_widens_the_bound) {
  ProgressWatch w(StallBound{.floor = 100ms, .factor = 2});
  auto at = iterate(w, t0, 50ms, 3);
  at = iterate(w, at, 500ms, 1);
  at = iterate(w, at, 50ms, 3);
  BOOST_CHECK_EQUAL(w.currentBound().count(), 1000);
  BOOST_CHECK(!w.newStall(at + 900ms));
}

BOOST_AUTO_TEST_CASE(a_stall_is_told_once_and_its_end_once) {
  ProgressWatch w(StallBound{.floor = 100ms, .factor = 1});
  auto at = iterate(w, t0, 100ms, 2);
  BOOST_REQUIRE(w.newStall(at + 150ms));
  BOOST_CHECK(!w.newStall(at + 300ms));
  BOOST_CHECK(!w.takeResumed());
  w.entered(at + 400ms);
  auto resumed = w.takeResumed();
  BOOST_REQUIRE(resumed);
  BOOST_CHECK_EQUAL(resumed->count(), 400);
  BOOST_CHECK(!w.takeResumed());
  w.left(at + 400ms, 3);
  BOOST_REQUIRE(w.newStall(at + 1000ms));  // a new stall is told again
}

BOOST_AUTO_TEST_CASE(nothing_before_the_first_phase_ends_or_inside_the_loop) {
  ProgressWatch w(StallBound{.floor = 100ms, .factor = 1});
  w.left(t0, 0);  // the first phase includes the application's set-up
  BOOST_CHECK(!w.newStall(t0 + 10s));
  w.entered(t0 + 10s);
  BOOST_CHECK(!w.newStall(t0 + 60s));  // in ftbckpt_loop: a checkpoint or a repair
  w.left(t0 + 60s, 1);
  BOOST_CHECK(!w.newStall(t0 + 60s + 10s));  // the bound is 10 s now
  BOOST_CHECK(w.newStall(t0 + 60s + 10s + 1ms));
}
