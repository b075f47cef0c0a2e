// CounterTracker: increments, resets, saturation per counter width, the rate window.
#define BOOST_TEST_MODULE counter_tracker
#include <boost/test/unit_test.hpp>

#include "components/ib/counter_tracker.h"

using namespace ftb::ib;
using ftb::Result;
using namespace std::chrono_literals;

namespace {

const Clock::time_point t0{};

CounterUpdate one(CounterTracker& t, const std::string& name, uint64_t value, Clock::time_point at) {
  std::vector<CounterUpdate> u = t.update({{name, value}}, at);
  BOOST_REQUIRE(u.size() == 1);
  return u[0];
}

}  // namespace

BOOST_AUTO_TEST_CASE(widths_follow_the_pma_table) {
  BOOST_TEST(counterBits("symbol_error") == 16u);
  BOOST_TEST(counterBits("link_downed") == 8u);
  BOOST_TEST(counterBits("local_link_integrity_errors") == 4u);
  BOOST_TEST(counterBits("excessive_buffer_overrun_errors") == 4u);
  BOOST_TEST(counterBits("port_xmit_data") == 64u);
  BOOST_TEST(counterBits("hw_counters/link_downed") == 64u);
}

BOOST_AUTO_TEST_CASE(first_readout_is_the_baseline_then_deltas) {
  CounterTracker t(60s);
  CounterUpdate u = one(t, "symbol_error", 500, t0);
  BOOST_TEST(u.delta == 0u);
  BOOST_TEST(!u.reset);
  u = one(t, "symbol_error", 530, t0 + 10s);
  BOOST_TEST(u.delta == 30u);
  BOOST_TEST(t.ratePerMinute("symbol_error", t0 + 10s) == 30.0);
}

BOOST_AUTO_TEST_CASE(a_value_going_down_is_a_reset_counted_from_zero) {
  CounterTracker t(60s);
  one(t, "link_downed", 200, t0);
  CounterUpdate u = one(t, "link_downed", 3, t0 + 10s);
  BOOST_TEST(u.reset);
  BOOST_TEST(u.delta == 3u);
  u = one(t, "link_downed", 5, t0 + 20s);
  BOOST_TEST(!u.reset);
  BOOST_TEST(u.delta == 2u);
  BOOST_TEST(t.ratePerMinute("link_downed", t0 + 20s) == 5.0);
}

BOOST_AUTO_TEST_CASE(saturation_at_the_maximum_of_the_width) {
  CounterTracker t(60s);
  one(t, "symbol_error", 65530, t0);
  CounterUpdate u = one(t, "symbol_error", 65535, t0 + 10s);
  BOOST_TEST(u.saturated);
  BOOST_TEST(u.delta == 5u);
  BOOST_TEST(t.saturated("symbol_error"));
  u = one(t, "symbol_error", 65535, t0 + 20s);  // stuck: no more increments visible
  BOOST_TEST(u.delta == 0u);

  one(t, "local_link_integrity_errors", 14, t0);
  BOOST_TEST(one(t, "local_link_integrity_errors", 15, t0 + 1s).saturated);  // 4 bits
  BOOST_TEST(!one(t, "hw_counters/link_downed", 65535, t0).saturated);      // 64 bits

  u = one(t, "symbol_error", 0, t0 + 30s);  // reset clears saturation
  BOOST_TEST(u.reset);
  BOOST_TEST(!t.saturated("symbol_error"));
}

BOOST_AUTO_TEST_CASE(rate_counts_only_the_window) {
  CounterTracker t(60s);
  one(t, "port_rcv_errors", 0, t0);
  one(t, "port_rcv_errors", 10, t0 + 10s);
  one(t, "port_rcv_errors", 30, t0 + 50s);
  BOOST_TEST(t.ratePerMinute("port_rcv_errors", t0 + 50s) == 30.0);
  BOOST_TEST(t.ratePerMinute("port_rcv_errors", t0 + 70s) == 20.0);  // the +10 at 10s left
  BOOST_TEST(t.ratePerMinute("port_rcv_errors", t0 + 111s) == 0.0);
  CounterTracker half(30s);
  one(half, "x", 0, t0);
  one(half, "x", 6, t0 + 10s);
  BOOST_TEST(half.ratePerMinute("x", t0 + 10s) == 12.0);  // 6 in 30 s = 12 per minute
}

BOOST_AUTO_TEST_CASE(a_missing_counter_keeps_its_history) {
  CounterTracker t(60s);
  one(t, "symbol_error", 100, t0);
  BOOST_TEST(t.update({}, t0 + 10s).empty());
  BOOST_TEST(one(t, "symbol_error", 104, t0 + 20s).delta == 4u);
  BOOST_TEST(t.ratePerMinute("nonexistent", t0) == 0.0);
}
