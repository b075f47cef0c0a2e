// Faults injected into a real BMC simulator (ipmi_sim) reach a subscriber as
// FTB.IPMI events, through the real ftb-ipmi binary and a real ftb-agent.
#define BOOST_TEST_MODULE ipmi_faults
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/spawn.h"

using namespace std::chrono_literals;
using ftb::Severity;
using ftb::ipmi::testing::field;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorRig;
using ftb::ipmi::testing::named;
using ftb::testing::MetricsText;
using Clock = std::chrono::steady_clock;

namespace {

// How long a change may take to be published on a loaded 2-core machine (a
// sweep or two, each a few IPMI round trips). Generous: an event that comes
// returns at once, and the time it took is printed, not asserted.
constexpr auto kWait = 20s;

void requireOnline(MonitorRig& rig, const std::string& node) {
  auto online = rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", node), kWait);
  BOOST_REQUIRE_MESSAGE(online, node << " never came online");
  // 7 readable sensors in components/ipmi/sim/sensors.sdrs: a failed command file shows here.
  BOOST_REQUIRE_EQUAL(field(*online, "sensors"), "7");
}

// The fields every threshold event carries.
void checkThreshold(const ftb::Event& e, const std::string& reading, const std::string& units,
                    const std::string& threshold, const std::string& threshold_value) {
  BOOST_CHECK_EQUAL(field(e, "reading"), reading);
  BOOST_CHECK_EQUAL(field(e, "units"), units);
  BOOST_CHECK_EQUAL(field(e, "threshold"), threshold);
  BOOST_CHECK_EQUAL(field(e, "threshold_value"), threshold_value);
}

// One simulated BMC, "node1", watched by a monitor once start() is called.
struct OneBmc {
  void start(const std::vector<std::string>& extra = {}) {
    monitor = rig.startMonitor({"node1=" + bmc.address()}, extra);
    requireOnline(rig, "node1");
  }
  MonitorRig rig;
  IpmiSimProcess bmc;
  std::unique_ptr<ftb::ipmi::testing::MonitorProcess> monitor;
};

std::chrono::milliseconds since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t);
}

// A monitor's --metrics-listen address (a free port).
std::string metricsAddress() { return "127.0.0.1:" + std::to_string(ftb::testing::freePort()); }

double sweepsOfNode1(const MetricsText& m) { return m.sum("ftb_ipmi_sweep_seconds_count", {{"bmc", "node1"}}); }

// Waits until `n` more sweeps of node1 have ended (the monitor's
// ftb_ipmi_sweep_seconds_count): at least n - 1 of them read every sensor
// after whatever came before this call. Counted, not slept: a loaded machine
// sweeps late.
void awaitSweeps(const std::string& metrics, int n) {
  const double from = sweepsOfNode1(ftb::testing::scrapeUntil(metrics, [](const MetricsText&) { return true; }));
  ftb::testing::scrapeUntil(metrics, [&](const MetricsText& m) { return sweepsOfNode1(m) >= from + n; }, 30s);
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(fan_at_zero_rpm_gives_fanfail_from_the_sweep_alone, OneBmc) {
  start();

  // Event generation off: no SEL record, so only the periodic sweep can see it.
  bmc.command("sensor_set_value 0x20 0 3 0 0");
  const auto injected = Clock::now();
  auto fail = rig.events.waitFor(named("FTB_IPMI_FANFAIL", "node1", "FAN1"), kWait);
  BOOST_REQUIRE_MESSAGE(fail, "no FANFAIL from the sweeps; monitor log:\n" << monitor->log());
  BOOST_TEST_MESSAGE("FANFAIL after " << since(injected).count() << " ms");
  BOOST_CHECK(fail->severity == Severity::kError);
  BOOST_CHECK_EQUAL(fail->event_space, "FTB.IPMI.MONITOR");
  BOOST_CHECK_EQUAL(fail->payload.substr(0, 6), "node1 ");  // host first, for FTB-IPMI consumers
  BOOST_CHECK_EQUAL(field(*fail, "node"), "node1");
  BOOST_CHECK_EQUAL(field(*fail, "bmc"), bmc.address());
  BOOST_CHECK_EQUAL(field(*fail, "type"), "fan");
  BOOST_CHECK_EQUAL(field(*fail, "state"), "critical");
  checkThreshold(*fail, "0.00", "RPM", "lower_critical", "500.00");

  bmc.command("sensor_set_value 0x20 0 3 100 0");
  const auto restored = Clock::now();
  auto normal = rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", "FAN1"), kWait);
  BOOST_REQUIRE_MESSAGE(normal, "no NORMAL after the fan recovered");
  BOOST_TEST_MESSAGE("NORMAL after " << since(restored).count() << " ms");
  BOOST_CHECK(normal->severity == Severity::kInfo);
  BOOST_CHECK_EQUAL(field(*normal, "previous"), "critical");
  BOOST_CHECK_EQUAL(field(*normal, "reading"), "5000.00");
}

BOOST_FIXTURE_TEST_CASE(cpu_above_critical_gives_overtemp_and_restoring_gives_normal, OneBmc) {
  start();

  bmc.command("sensor_set_value 0x20 0 1 95 1");  // 95 C >= upper critical 90 C
  auto hot = rig.events.waitForIndex(named("FTB_IPMI_OVERTEMP", "node1", "CPU1 Temp"), kWait);
  BOOST_REQUIRE_MESSAGE(hot, "no OVERTEMP; monitor log:\n" << monitor->log());
  const ftb::Event e = rig.events.events()[*hot];
  BOOST_CHECK(e.severity == Severity::kError);
  BOOST_CHECK_EQUAL(field(e, "type"), "temperature");
  checkThreshold(e, "95.00", "C", "upper_critical", "90.00");

  bmc.command("sensor_set_value 0x20 0 1 45 1");
  auto normal = rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", "CPU1 Temp"), kWait, *hot);
  BOOST_REQUIRE_MESSAGE(normal, "no NORMAL after cooling down");
  BOOST_CHECK_EQUAL(field(*normal, "previous"), "critical");
  BOOST_CHECK_EQUAL(field(*normal, "reading"), "45.00");
  // CPU2 was never touched: nothing about it.
  BOOST_CHECK_EQUAL(rig.events.count([](const ftb::Event& ev) { return field(ev, "sensor") == "CPU2 Temp"; }), 0u);
}

BOOST_FIXTURE_TEST_CASE(approaching_a_threshold_gives_one_warning, OneBmc) {
  const std::string metrics = metricsAddress();
  start({"--metrics-listen=" + metrics});

  bmc.command("sensor_set_value 0x20 0 2 85 1");  // CPU2 85 C: above non-critical 80, below 90
  auto warm = rig.events.waitFor(named("FTB_IPMI_SENSOR_WARNING", "node1", "CPU2 Temp"), kWait);
  BOOST_REQUIRE_MESSAGE(warm, "no WARNING; monitor log:\n" << monitor->log());
  BOOST_CHECK(warm->severity == Severity::kWarning);
  checkThreshold(*warm, "85.00", "C", "upper_non_critical", "80.00");
  // Three more sweeps at the same reading publish nothing more.
  awaitSweeps(metrics, 4);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_SENSOR_WARNING", "node1", "CPU2 Temp")), 1u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_OVERTEMP", "node1")), 0u);
}

BOOST_FIXTURE_TEST_CASE(sel_entry_added_at_runtime_is_published_before_the_next_sweep, OneBmc) {
  // A sweep interval longer than the wait below: the next sweep comes after
  // it (and sweeps read sensors, not the SEL), so only the SEL follower can
  // publish the record. The follower took its baseline before the monitor
  // said it was online.
  start({"--interval-ms=30000"});

  // A correctable-ECC system event record on sensor 6 (DIMM ECC), as a BMC logs one.
  const auto added = Clock::now();
  const int id = bmc.addSel("0x20 0x02 0 0 0 0 0x20 0x00 0x04 0x0c 0x06 0x6f 0x00 0xff 0xff");
  auto ecc = rig.events.waitFor(named("FTB_IPMI_ECC_CORRECTABLE", "node1", "DIMM ECC"), kWait);
  BOOST_REQUIRE_MESSAGE(ecc, "SEL record not published; monitor log:\n" << monitor->log());
  BOOST_TEST_MESSAGE("SEL record published after " << since(added).count() << " ms");
  BOOST_CHECK(ecc->severity == Severity::kWarning);
  BOOST_CHECK_EQUAL(field(*ecc, "sel_id"), std::to_string(id));
  BOOST_CHECK_EQUAL(field(*ecc, "condition"), "correctable_ecc");
  BOOST_CHECK_EQUAL(field(*ecc, "event"), "Correctable memory error");
}

BOOST_FIXTURE_TEST_CASE(memory_power_supply_and_voltage_faults, OneBmc) {
  start();

  bmc.command("sensor_set_bit_clr_rest 0x20 0 6 1 1 1");  // uncorrectable ECC
  bmc.command("sensor_set_bit 0x20 0 7 1 1 1");           // PSU1 failure
  bmc.command("sensor_set_value 0x20 0 5 225 1");         // 13.50 V >= upper critical 13.20 V
  const auto wait = kWait;
  auto ecc = rig.events.waitFor(named("FTB_IPMI_ECC_UNCORRECTABLE", "node1", "DIMM ECC"), wait);
  auto psu = rig.events.waitFor(named("FTB_IPMI_PSU_FAIL", "node1", "PSU1 Status"), wait);
  auto volt = rig.events.waitFor(named("FTB_IPMI_VOLTAGE_OUT_OF_RANGE", "node1", "12V"), wait);
  BOOST_REQUIRE_MESSAGE(ecc && psu && volt, "missing events; monitor log:\n" << monitor->log());
  BOOST_CHECK(ecc->severity == Severity::kError);
  BOOST_CHECK(psu->severity == Severity::kError);
  BOOST_CHECK_EQUAL(field(*psu, "condition"), "psu_failure");
  checkThreshold(*volt, "13.50", "V", "upper_critical", "13.20");

  bmc.command("sensor_set_bit 0x20 0 6 1 0 1");
  bmc.command("sensor_set_bit 0x20 0 7 1 0 1");
  bmc.command("sensor_set_value 0x20 0 5 200 1");
  for (const char* sensor : {"DIMM ECC", "PSU1 Status", "12V"}) {
    BOOST_CHECK_MESSAGE(rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", sensor), wait),
                        "no NORMAL for " << sensor);
  }
  // The SEL and the sweep both saw the ECC error; it was published once.
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_ECC_UNCORRECTABLE", "node1")), 1u);
}

BOOST_FIXTURE_TEST_CASE(flapping_sensor_does_not_produce_a_storm, OneBmc) {
  // A flap window far longer than the toggling below takes, even on a loaded machine.
  constexpr auto kFlapWindow = 20s;
  const std::string metrics = metricsAddress();
  start({"--interval-ms=200", "--recheck-ms=100", "--debounce=2", "--flap-changes=2",
         "--flap-window-s=" + std::to_string(kFlapWindow.count()), "--metrics-listen=" + metrics});
  const std::size_t first = rig.events.size();

  // FAN2 between 0 and 4800 RPM, each change logged in the SEL; the next
  // change only once three more sweeps ended (two of them read this value, so
  // the debounce confirmed it): without the flap guard each change would be
  // published, whatever the machine's speed.
  const int kToggles = 10;
  for (int i = 0; i < kToggles; ++i) {
    bmc.command(std::string("sensor_set_value 0x20 0 4 ") + (i % 2 == 0 ? "0" : "96") + " 1");
    awaitSweeps(metrics, 3);
  }
  auto about_fan2 = [](const ftb::Event& e) { return field(e, "sensor") == "FAN2"; };
  const std::size_t during = rig.events.count(about_fan2, first);
  BOOST_TEST_MESSAGE(kToggles << " changes of FAN2 gave " << during << " events");
  // flap-changes state events, then one FLAPPING, then silence.
  BOOST_CHECK_LE(during, 3u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_SENSOR_FLAPPING", "node1", "FAN2"), first), 1u);

  // It still reports a real failure once the sensor holds still (after the flap window).
  const std::size_t steady = rig.events.size();
  bmc.command("sensor_set_value 0x20 0 4 0 1");
  auto fail = rig.events.waitForIndex(named("FTB_IPMI_FANFAIL", "node1", "FAN2"), kFlapWindow + kWait, steady);
  BOOST_CHECK_MESSAGE(fail, "a steady failure after flapping was not reported; log:\n"
                                << monitor->log());
  BOOST_CHECK_LE(rig.events.count(about_fan2, first), during + 1);
}
