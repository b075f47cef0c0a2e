// PortPredictor: thresholds, saturation, width/speed, hysteresis on recovery.
#define BOOST_TEST_MODULE port_predictor
#include <boost/test/unit_test.hpp>

#include "components/ib/port_predictor.h"

using namespace ftb::ib;
using ftb::Result;
using namespace std::chrono_literals;
using Change = Assessment::Change;

namespace {

const Clock::time_point t0{};

PortAttrs link(uint32_t width, double lane_gbps, int state = kStateActive) {
  return PortAttrs{.state = state, .phys_state = 5, .width = width, .lane_gbps = lane_gbps};
}

struct Rig {
  explicit Rig(PredictionOptions o = {.thresholds_per_min = {{"symbol_error", 10}},
                                      .window = 60s,
                                      .recover_sweeps = 3})
      : p(std::move(o)) {}
  // One sweep 10 s after the last with symbol_error at `value`.
  Assessment sweep(uint64_t value, PortAttrs attrs = link(4, 25)) {
    now += 10s;
    return p.assess({{"symbol_error", value}}, attrs, now);
  }
  PortPredictor p;
  Clock::time_point now = t0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(defaults_follow_infiniband_diags) {
  auto d = defaultThresholds();
  BOOST_TEST(d.at("symbol_error") == 10);
  BOOST_TEST(d.at("link_downed") == 10);
  BOOST_TEST(d.at("VL15_dropped") == 100);
  BOOST_TEST(!d.count("port_xmit_data"));  // traffic is not an error
}

BOOST_AUTO_TEST_CASE(errors_above_the_threshold_degrade_once) {
  Rig r;
  BOOST_TEST((r.sweep(0).change == Change::kNone));   // baseline
  BOOST_TEST((r.sweep(10).change == Change::kNone));  // 10/min is not above 10/min
  Assessment a = r.sweep(11);
  BOOST_TEST((a.change == Change::kDegraded));
  BOOST_TEST_REQUIRE(a.reasons.size() == 1u);
  BOOST_TEST(a.reasons[0] == "symbol_error 11/min > 10/min");
  BOOST_TEST(r.p.degraded());
  BOOST_TEST((r.sweep(40).change == Change::kNone));  // still degraded: said already
}

BOOST_AUTO_TEST_CASE(recovery_needs_clean_sweeps_below_half_the_threshold) {
  Rig r;
  r.sweep(0);
  BOOST_TEST((r.sweep(20).change == Change::kDegraded));
  // The 20 leave the window after 60 s; until then the rate stays above.
  uint64_t v = 20;
  int sweeps = 0;
  while (r.p.degraded() && sweeps < 20) {
    // 1 error per sweep = 6/min: above half the threshold, so never "clean".
    Assessment a = r.sweep(++v);
    BOOST_TEST((a.change != Change::kHealthy));
    ++sweeps;
  }
  BOOST_TEST(r.p.degraded());
  // Now quiet: the rate falls to 5/min (half the threshold: clean), 4, 3 ...;
  // healthy at the third clean sweep in a row.
  std::vector<Change> changes;
  for (int i = 0; i < 5; ++i) changes.push_back(r.sweep(v).change);
  BOOST_TEST((changes == std::vector<Change>{Change::kNone, Change::kNone, Change::kHealthy,
                                             Change::kNone, Change::kNone}));
  BOOST_TEST(!r.p.degraded());
}

BOOST_AUTO_TEST_CASE(a_saturated_error_counter_is_degraded_until_reset) {
  Rig r;
  r.sweep(65530);
  Assessment a = r.sweep(65535);
  BOOST_TEST((a.change == Change::kDegraded));
  BOOST_TEST(a.reasons[0] == "symbol_error saturated at its maximum");
  for (int i = 0; i < 10; ++i) BOOST_TEST((r.sweep(65535).change == Change::kNone));
  BOOST_TEST(r.p.degraded());
  a = r.sweep(0);  // perfquery -R
  BOOST_TEST(a.resets == std::vector<std::string>{"symbol_error"});
  r.sweep(0);
  BOOST_TEST((r.sweep(0).change == Change::kHealthy));
}

BOOST_AUTO_TEST_CASE(link_below_its_best_width_or_speed_is_degraded) {
  Rig r;
  BOOST_TEST((r.sweep(0, link(4, 25)).change == Change::kNone));
  Assessment a = r.sweep(0, link(1, 25));
  BOOST_TEST((a.change == Change::kDegraded));
  BOOST_TEST(a.reasons == std::vector<std::string>{"width 1X < 4X"});
  a = r.sweep(0, link(1, 10));  // a new reason: said again
  BOOST_TEST((a.change == Change::kDegraded));
  BOOST_TEST(a.reasons == (std::vector<std::string>{"width 1X < 4X", "speed QDR < EDR"}));
  BOOST_TEST((r.sweep(0, link(1, 10)).change == Change::kNone));
  // A DOWN port is not judged on width (it has none).
  for (int i = 0; i < 2; ++i) r.sweep(0, link(0, 0, kStateDown));
  BOOST_TEST((r.sweep(0, link(4, 25)).change == Change::kHealthy));
}

BOOST_AUTO_TEST_CASE(expected_width_catches_a_port_that_never_trained_wide) {
  Rig r({.thresholds_per_min = {}, .window = 60s, .expected_width = 4, .recover_sweeps = 1});
  Assessment a = r.sweep(0, link(2, 50));
  BOOST_TEST((a.change == Change::kDegraded));
  BOOST_TEST(a.reasons == std::vector<std::string>{"width 2X < 4X"});
}

BOOST_AUTO_TEST_CASE(a_zero_threshold_switches_a_counter_off) {
  Rig r({.thresholds_per_min = {{"symbol_error", 0}}, .window = 60s, .recover_sweeps = 1});
  r.sweep(0);
  BOOST_TEST((r.sweep(65535).change == Change::kNone));
}
