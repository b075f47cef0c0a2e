// Faults injected into a real BMC simulator (ipmi_sim) reach a subscriber as
// FTB.IPMI events, through the real ftb-ipmi binary and a real ftb-agent.
#define BOOST_TEST_MODULE ipmi_faults
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_rig.h"

using namespace std::chrono_literals;
using ftb::Severity;
using ftb::ipmi::testing::field;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::kTestInterval;
using ftb::ipmi::testing::MonitorRig;
using ftb::ipmi::testing::named;
using Clock = std::chrono::steady_clock;

namespace {

void requireOnline(MonitorRig& rig, const std::string& node) {
  auto online = rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", node), 10s);
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

}  // namespace

BOOST_FIXTURE_TEST_CASE(fan_at_zero_rpm_gives_fanfail_within_two_sweep_intervals, OneBmc) {
  start();

  // Event generation off: no SEL record, so only the periodic sweep can see it.
  bmc.command("sensor_set_value 0x20 0 3 0 0");
  const auto injected = Clock::now();
  auto fail = rig.events.waitFor(named("FTB_IPMI_FANFAIL", "node1", "FAN1"), 2 * kTestInterval);
  BOOST_REQUIRE_MESSAGE(fail, "no FANFAIL within two sweep intervals; monitor log:\n"
                                  << monitor->log());
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
  auto normal = rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", "FAN1"), 2 * kTestInterval);
  BOOST_REQUIRE_MESSAGE(normal, "no NORMAL after the fan recovered");
  BOOST_TEST_MESSAGE("NORMAL after " << since(restored).count() << " ms");
  BOOST_CHECK(normal->severity == Severity::kInfo);
  BOOST_CHECK_EQUAL(field(*normal, "previous"), "critical");
  BOOST_CHECK_EQUAL(field(*normal, "reading"), "5000.00");
}

BOOST_FIXTURE_TEST_CASE(cpu_above_critical_gives_overtemp_and_restoring_gives_normal, OneBmc) {
  start();

  bmc.command("sensor_set_value 0x20 0 1 95 1");  // 95 C >= upper critical 90 C
  auto hot = rig.events.waitForIndex(named("FTB_IPMI_OVERTEMP", "node1", "CPU1 Temp"),
                                     2 * kTestInterval);
  BOOST_REQUIRE_MESSAGE(hot, "no OVERTEMP; monitor log:\n" << monitor->log());
  const ftb::Event e = rig.events.events()[*hot];
  BOOST_CHECK(e.severity == Severity::kError);
  BOOST_CHECK_EQUAL(field(e, "type"), "temperature");
  checkThreshold(e, "95.00", "C", "upper_critical", "90.00");

  bmc.command("sensor_set_value 0x20 0 1 45 1");
  auto normal = rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", "CPU1 Temp"),
                                   2 * kTestInterval, *hot);
  BOOST_REQUIRE_MESSAGE(normal, "no NORMAL after cooling down");
  BOOST_CHECK_EQUAL(field(*normal, "previous"), "critical");
  BOOST_CHECK_EQUAL(field(*normal, "reading"), "45.00");
  // CPU2 was never touched: nothing about it.
  BOOST_CHECK_EQUAL(rig.events.count([](const ftb::Event& ev) { return field(ev, "sensor") == "CPU2 Temp"; }), 0u);
}

BOOST_FIXTURE_TEST_CASE(approaching_a_threshold_gives_one_warning, OneBmc) {
  start();

  bmc.command("sensor_set_value 0x20 0 2 85 1");  // CPU2 85 C: above non-critical 80, below 90
  auto warm = rig.events.waitFor(named("FTB_IPMI_SENSOR_WARNING", "node1", "CPU2 Temp"),
                                 2 * kTestInterval);
  BOOST_REQUIRE_MESSAGE(warm, "no WARNING; monitor log:\n" << monitor->log());
  BOOST_CHECK(warm->severity == Severity::kWarning);
  checkThreshold(*warm, "85.00", "C", "upper_non_critical", "80.00");
  // Several more sweeps at the same reading publish nothing more.
  std::this_thread::sleep_for(3 * kTestInterval);  // a quiet period, not a synchronisation
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_SENSOR_WARNING", "node1", "CPU2 Temp")), 1u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_OVERTEMP", "node1")), 0u);
}

BOOST_FIXTURE_TEST_CASE(sel_entry_added_at_runtime_is_published_before_the_next_sweep, OneBmc) {
  // A long sweep interval: only the SEL follower can be this quick. The
  // follower took its baseline before the monitor said it was online.
  start({"--interval-ms=10000"});

  // A correctable-ECC system event record on sensor 6 (DIMM ECC), as a BMC logs one.
  const auto added = Clock::now();
  const int id = bmc.addSel("0x20 0x02 0 0 0 0 0x20 0x00 0x04 0x0c 0x06 0x6f 0x00 0xff 0xff");
  auto ecc = rig.events.waitFor(named("FTB_IPMI_ECC_CORRECTABLE", "node1", "DIMM ECC"), 2s);
  BOOST_REQUIRE_MESSAGE(ecc, "SEL record not published; monitor log:\n" << monitor->log());
  BOOST_TEST_MESSAGE("SEL record published after " << since(added).count() << " ms");
  BOOST_CHECK_LT(since(added).count(), 2000);
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
  const auto wait = 3 * kTestInterval;
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
  start({"--interval-ms=500", "--recheck-ms=100", "--debounce=2", "--flap-changes=2",
         "--flap-window-s=3"});
  const std::size_t first = rig.events.size();

  // FAN2 between 0 and 4800 RPM every 450 ms for about 7 s, each change logged
  // in the SEL: slow enough for the debounce to confirm every change, so
  // without the flap guard each one would be published.
  const int kToggles = 16;
  for (int i = 0; i < kToggles; ++i) {
    bmc.command(std::string("sensor_set_value 0x20 0 4 ") + (i % 2 == 0 ? "0" : "96") + " 1");
    std::this_thread::sleep_for(450ms);  // the flapping rate, not a synchronisation
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
  auto fail = rig.events.waitForIndex(named("FTB_IPMI_FANFAIL", "node1", "FAN2"), 8s, steady);
  BOOST_CHECK_MESSAGE(fail, "a steady failure after flapping was not reported; log:\n"
                                << monitor->log());
  BOOST_CHECK_LE(rig.events.count(about_fan2, first), during + 1);
}
