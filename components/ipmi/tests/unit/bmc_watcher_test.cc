// BmcWatcher with a scripted SensorSource and manual time: scheduling,
// backoff, the SEL path and what gets published.
#define BOOST_TEST_MODULE bmc_watcher
#include <boost/test/unit_test.hpp>

#include <memory>
#include <thread>

#include "components/ipmi/bmc_watcher.h"
#include "components/ipmi/events.h"
#include "components/ipmi/payload.h"
#include "components/ipmi/testing/fake_sensor_source.h"

using namespace std::chrono_literals;
using namespace ftb::ipmi;
using ftb::ipmi::testing::FakeSensorSource;
using ftb::ipmi::testing::RecordingSink;

namespace {

SensorReading fan(double rpm) {
  SensorReading r{.record_id = 5, .sensor_number = 3, .name = "FAN1", .kind = SensorKind::kFan,
                  .value = rpm, .units = "RPM"};
  if (rpm <= 500) {
    r.level = Level::kCritical;
    r.crossed = Threshold::kLowerCritical;
    r.threshold_value = 500;
  }
  return r;
}

SelRecord correctableEcc(uint16_t id) {
  return {.record_id = id, .sensor_number = 6, .sensor_name = "DIMM ECC", .kind = SensorKind::kMemory,
          .level = Level::kWarning, .condition = "correctable_ecc",
          .description = "Correctable memory error"};
}

struct Fixture {
  Fixture() {
    auto s = std::make_unique<FakeSensorSource>();
    source = s.get();
    source->readings = {fan(5000)};
    watcher = std::make_unique<BmcWatcher>(
        WatcherOptions{.node = "n1", .bmc = "10.0.0.1:623", .interval = 10s, .recheck = 1s,
                       .sel_poll = 2s, .repeat_holdoff = 60s, .retry_min = 1000ms,
                       .retry_max = 4000ms},
        std::move(s), sink);
  }
  // Calls step() at every time it asks for until `until`.
  void runUntil(Clock::time_point until) {
    while (next <= until) next = watcher->step(next);
  }
  std::string field(std::size_t i, const std::string& key) {
    auto p = ftb::parsePayload(sink.events.at(i).payload);
    BOOST_REQUIRE(p.ok());
    return p->fields.count(key) ? p->fields.at(key) : "";
  }

  RecordingSink sink;
  FakeSensorSource* source;
  std::unique_ptr<BmcWatcher> watcher;
  Clock::time_point t0 = Clock::time_point{} + 1h;
  Clock::time_point next = t0;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(connects_announces_and_sweeps_every_interval, Fixture) {
  runUntil(t0 + 35s);
  BOOST_CHECK_EQUAL(source->opens, 1);
  BOOST_CHECK_EQUAL(source->sweeps, 4);       // t0, +10, +20, +30
  BOOST_CHECK_EQUAL(source->sel_checks, 17);  // every 2 s from t0 + 2 s
  BOOST_REQUIRE_EQUAL(sink.events.size(), 1u);
  BOOST_CHECK_EQUAL(sink.events[0].name, kBmcOnline);
  BOOST_CHECK_EQUAL(field(0, "recovered"), "false");
  BOOST_CHECK_EQUAL(field(0, "sensors"), "1");
}

BOOST_AUTO_TEST_CASE(fault_is_rechecked_soon_and_published_once_confirmed) {
  Fixture f;
  f.runUntil(f.t0);
  f.source->readings = {fan(0)};
  f.runUntil(f.t0 + 10s);  // sweep at +10 sees it once; a recheck follows in 1 s
  BOOST_CHECK_EQUAL(f.sink.count(kFanFail), 0u);
  BOOST_CHECK(f.next == f.t0 + 11s);
  f.runUntil(f.t0 + 11s);
  BOOST_REQUIRE_EQUAL(f.sink.count(kFanFail), 1u);
  BOOST_CHECK_EQUAL(f.field(1, "reading"), "0.00");
  BOOST_CHECK_EQUAL(f.field(1, "threshold"), "lower_critical");
  BOOST_CHECK(f.sink.events[1].payload.starts_with("n1 "));
  f.runUntil(f.t0 + 60s);
  BOOST_CHECK_EQUAL(f.sink.count(kFanFail), 1u);  // a steady fault is not repeated
  f.source->readings = {fan(5000)};
  f.runUntil(f.t0 + 72s);
  BOOST_CHECK_EQUAL(f.sink.count(kNormal), 1u);
}

BOOST_FIXTURE_TEST_CASE(unreachable_bmc_warns_once_and_backs_off, Fixture) {
  source->open_status = ftb::unavailable("connection timeout");
  std::vector<Clock::time_point> attempts;
  for (int i = 0; i < 6; ++i) {
    attempts.push_back(next);
    next = watcher->step(next);
  }
  BOOST_CHECK_EQUAL(source->opens, 6);
  // 1, 2, 4, 4, 4 s between attempts (min 1 s, doubling, max 4 s).
  const std::vector<Clock::duration> gaps = {1s, 2s, 4s, 4s, 4s};
  for (std::size_t i = 0; i < gaps.size(); ++i) BOOST_CHECK(attempts[i + 1] - attempts[i] == gaps[i]);
  BOOST_REQUIRE_EQUAL(sink.events.size(), 1u);
  BOOST_CHECK_EQUAL(sink.events[0].name, kMonitorTrouble);
  BOOST_CHECK_EQUAL(field(0, "problem"), "unreachable");
  BOOST_CHECK_EQUAL(field(0, "error"), "connection timeout");

  source->open_status = {};
  next = watcher->step(next);
  BOOST_REQUIRE_EQUAL(sink.events.size(), 2u);
  BOOST_CHECK_EQUAL(sink.events[1].name, kBmcOnline);
  BOOST_CHECK_EQUAL(field(1, "recovered"), "true");

  // Trouble again later: a new episode, a new warning, backoff from the start.
  source->read_status = ftb::unavailable("session timeout");
  source->open_status = ftb::Status(ftb::Code::kUnauthenticated, "password invalid");
  const auto failed_at = next;
  next = watcher->step(next);  // the sweep fails: reconnect at once, without a warning
  BOOST_CHECK(next == failed_at);
  BOOST_CHECK_EQUAL(sink.events.size(), 2u);
  next = watcher->step(next);
  BOOST_REQUIRE_EQUAL(sink.events.size(), 3u);
  BOOST_CHECK_EQUAL(field(2, "problem"), "credentials");
  BOOST_CHECK(next - failed_at == 1s);
}

BOOST_FIXTURE_TEST_CASE(sel_occurrences_go_out_at_once_and_repeats_are_held_back, Fixture) {
  runUntil(t0);
  source->sel.push_back(correctableEcc(11));
  runUntil(t0 + 2s);  // first SEL check
  BOOST_REQUIRE_EQUAL(sink.count(kEccCorrectable), 1u);
  BOOST_CHECK_EQUAL(field(1, "sel_id"), "11");
  BOOST_CHECK_EQUAL(field(1, "event"), "Correctable memory error");
  source->sel.push_back(correctableEcc(12));
  source->sel.push_back(correctableEcc(13));
  runUntil(t0 + 30s);
  BOOST_CHECK_EQUAL(sink.count(kEccCorrectable), 1u);  // within the 60 s hold-off
  runUntil(t0 + 62s);  // the hold-off has passed
  source->sel.push_back(correctableEcc(14));
  runUntil(t0 + 70s);
  BOOST_REQUIRE_EQUAL(sink.count(kEccCorrectable), 2u);
  BOOST_CHECK_EQUAL(field(sink.events.size() - 1, "repeats_held_back"), "2");
}

BOOST_FIXTURE_TEST_CASE(sel_threshold_record_brings_the_sweep_forward_instead_of_publishing, Fixture) {
  runUntil(t0);
  source->readings = {fan(0)};
  source->sel.push_back({.record_id = 1, .sensor_number = 3, .sensor_name = "FAN1",
                         .kind = SensorKind::kFan, .threshold_event = true,
                         .level = Level::kCritical, .crossed = Threshold::kLowerCritical});
  runUntil(t0 + 2s);  // the SEL check at +2 s asks for a sweep now
  BOOST_CHECK_EQUAL(sink.count(kFanFail), 0u);
  BOOST_CHECK_EQUAL(source->sweeps, 2);
  runUntil(t0 + 3s);  // and the recheck confirms it
  BOOST_CHECK_EQUAL(sink.count(kFanFail), 1u);
}

BOOST_FIXTURE_TEST_CASE(stop_ends_run, Fixture) {
  std::thread t([&] { watcher->run(); });
  watcher->requestStop();
  t.join();
  BOOST_CHECK(!source->is_open);
}
