// SensorStateMachine: debounce, hysteresis and flap suppression, table-driven.
#define BOOST_TEST_MODULE sensor_state
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "components/ipmi/sensor_state.h"

using namespace std::chrono_literals;
using ftb::ipmi::Clock;
using ftb::ipmi::Decision;
using ftb::ipmi::Level;
using ftb::ipmi::Observation;
using ftb::ipmi::SensorStateMachine;
using ftb::ipmi::StateMachineOptions;
using ftb::ipmi::Threshold;

namespace {

// A fan (lower thresholds: warning 1000 RPM, critical 500 RPM).
Observation fan(double rpm) {
  if (rpm <= 500) return {Level::kCritical, Threshold::kLowerCritical, rpm, 500.0};
  if (rpm <= 1000) return {Level::kWarning, Threshold::kLowerNonCritical, rpm, 1000.0};
  return {Level::kNormal, Threshold::kNone, rpm, std::nullopt};
}

// What each reading of `rpms` (one per second) publishes: "" for nothing,
// "normal>critical" for a change, "flapping" for the flap notice.
std::vector<std::string> run(StateMachineOptions options, const std::vector<double>& rpms) {
  SensorStateMachine m(options);
  std::vector<std::string> out;
  Clock::time_point t{};
  for (double rpm : rpms) {
    t += 1s;
    const Decision d = m.observe(fan(rpm), t);
    if (d.kind == Decision::Kind::kNone) {
      out.push_back("");
    } else if (d.kind == Decision::Kind::kFlapping) {
      out.push_back("flapping");
    } else {
      auto name = [](Level l) {
        return l == Level::kNormal ? "normal" : l == Level::kWarning ? "warning" : "critical";
      };
      out.push_back(std::string(name(d.from)) + ">" + name(d.to));
    }
  }
  return out;
}

struct Case {
  const char* what;
  StateMachineOptions options;
  std::vector<double> rpms;
  std::vector<std::string> expected;
};

const StateMachineOptions kDefault{};  // debounce 2, hysteresis 2 %, 4 changes / 300 s

}  // namespace

BOOST_AUTO_TEST_CASE(table) {
  const StateMachineOptions debounce1{.debounce_readings = 1};
  const StateMachineOptions debounce3{.debounce_readings = 3};
  const StateMachineOptions flap{.debounce_readings = 1, .flap_max_changes = 2, .flap_window = 5s};
  const std::vector<Case> cases = {
      {"steady and healthy publishes nothing", kDefault, {5000, 5000, 5000}, {"", "", ""}},
      {"a failure is published on its second reading", kDefault, {5000, 0, 0, 0},
       {"", "", "normal>critical", ""}},
      {"one bad reading is noise", kDefault, {5000, 0, 5000, 5000}, {"", "", "", ""}},
      {"debounce 3 needs three in a row", debounce3, {0, 0, 5000, 0, 0, 0},
       {"", "", "", "", "", "normal>critical"}},
      {"debounce 1 publishes at once", debounce1, {0}, {"normal>critical"}},
      {"recovery is debounced too", kDefault, {0, 0, 5000, 5000},
       {"", "normal>critical", "", "critical>normal"}},
      {"warning then critical", kDefault, {800, 800, 0, 0},
       {"", "normal>warning", "", "warning>critical"}},
      {"a new candidate restarts the count", debounce3, {800, 800, 0, 0, 0},
       {"", "", "", "", "normal>critical"}},
      // Hysteresis: critical was entered below 500 RPM; 505 is within 2 % of it.
      {"hysteresis holds critical near the threshold", debounce1, {0, 505, 505, 520},
       {"normal>critical", "", "", "critical>warning"}},
      {"hysteresis holds warning near its threshold", debounce1, {900, 1010, 1030},
       {"normal>warning", "", "warning>normal"}},
      {"flapping: two changes, then one notice, then silence", flap,
       {0, 5000, 0, 5000, 0, 5000, 0},
       {"normal>critical", "critical>normal", "flapping", "", "", "", ""}},
      {"after flapping, a settled new state is published", flap,
       {0, 5000, 0, 0, 0, 0, 0, 0, 0, 0, 0},
       {"normal>critical", "critical>normal", "flapping", "", "", "", "", "", "normal>critical", "", ""}},
      {"after flapping, settling where it was publishes nothing", flap,
       {0, 5000, 0, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000},
       {"normal>critical", "critical>normal", "flapping", "", "", "", "", "", "", "", ""}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) { BOOST_TEST(run(c.options, c.rpms) == c.expected, boost::test_tools::per_element()); }
  }
}

BOOST_AUTO_TEST_CASE(change_carries_the_threshold_that_confirmed_it) {
  SensorStateMachine m(StateMachineOptions{.debounce_readings = 1});
  const Decision d = m.observe(fan(0), Clock::time_point{} + 1s);
  BOOST_REQUIRE(d.kind == Decision::Kind::kChange);
  BOOST_CHECK(d.crossed == Threshold::kLowerCritical);
  BOOST_REQUIRE(d.threshold_value);
  BOOST_CHECK_EQUAL(*d.threshold_value, 500.0);
  BOOST_CHECK(m.published() == Level::kCritical);
}

BOOST_AUTO_TEST_CASE(pending_while_a_change_awaits_confirmation) {
  SensorStateMachine m;  // debounce 2
  m.observe(fan(5000), Clock::time_point{} + 1s);
  BOOST_CHECK(!m.pending());
  m.observe(fan(0), Clock::time_point{} + 2s);
  BOOST_CHECK(m.pending());
  m.observe(fan(0), Clock::time_point{} + 3s);
  BOOST_CHECK(!m.pending());
}

BOOST_AUTO_TEST_CASE(discrete_sensors_have_no_hysteresis) {
  SensorStateMachine m(StateMachineOptions{.debounce_readings = 1});
  m.observe({Level::kCritical, Threshold::kNone, std::nullopt, std::nullopt}, Clock::time_point{} + 1s);
  const Decision d =
      m.observe({Level::kNormal, Threshold::kNone, std::nullopt, std::nullopt}, Clock::time_point{} + 2s);
  BOOST_CHECK(d.kind == Decision::Kind::kChange);
  BOOST_CHECK(d.to == Level::kNormal);
}
