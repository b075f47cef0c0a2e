// ftb-ipmi keeps working when BMCs vanish, come back, are unreachable or
// reject its credentials, and one monitor watches several BMCs at once.
#define BOOST_TEST_MODULE ipmi_resilience
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "tests/support/spawn.h"

using namespace std::chrono_literals;
using ftb::Severity;
using ftb::ipmi::testing::field;
using ftb::testing::freePort;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorProcess;
using ftb::ipmi::testing::MonitorRig;
using ftb::ipmi::testing::named;

namespace {

// How long a change may take to be published on a loaded 2-core machine;
// an event that comes returns at once.
constexpr auto kWait = 20s;

// Times `what` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(simulator_killed_and_restarted_is_recovered_from) {
  MonitorRig rig;
  IpmiSimProcess bmc;
  auto monitor = rig.startMonitor({"node1=" + bmc.address()});
  BOOST_REQUIRE(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "node1"), kWait));
  bmc.command("sensor_set_value 0x20 0 3 0 1");
  auto failed = rig.events.waitForIndex(named("FTB_IPMI_FANFAIL", "node1", "FAN1"), kWait);
  BOOST_REQUIRE_MESSAGE(failed, "no FANFAIL; log:\n" << monitor->log());

  bmc.kill();  // the BMC vanishes mid-session
  auto trouble = rig.events.waitForIndex(named("FTB_IPMI_MONITOR_TROUBLE", "node1"), kWait, *failed);
  BOOST_REQUIRE_MESSAGE(trouble, "no MONITOR_TROUBLE after the BMC died; log:\n" << monitor->log());
  BOOST_CHECK_EQUAL(field(rig.events.events()[*trouble], "problem"), "unreachable");

  bmc.restart();  // same port and SEL; the fan is healthy again (fresh emulator state)
  auto online = rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "node1"), kWait, *trouble);
  BOOST_REQUIRE_MESSAGE(online, "monitor did not reconnect; log:\n" << monitor->log());
  BOOST_CHECK_EQUAL(field(*online, "recovered"), "true");
  // The failure it reported before is over: NORMAL, without waiting for anything else.
  BOOST_CHECK_MESSAGE(rig.events.waitFor(named("FTB_IPMI_NORMAL", "node1", "FAN1"), kWait, *trouble),
                      "no NORMAL for FAN1 after the restart");
  // Old SEL records (persisted across the restart) are not published again.
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_FANFAIL", "node1", "FAN1")), 1u);
  // And it watches the restarted BMC.
  bmc.command("sensor_set_value 0x20 0 1 95 1");
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_OVERTEMP", "node1", "CPU1 Temp"), kWait));
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_MONITOR_TROUBLE", "node1")), 1u);
}

BOOST_AUTO_TEST_CASE(one_monitor_watches_several_simulators) {
  MonitorRig rig;
  IpmiSimProcess a, b, c;
  auto monitor = rig.startMonitor(
      {"nodeA=" + a.address(), "nodeB=" + b.address(), "nodeC=" + c.address()});
  for (const char* node : {"nodeA", "nodeB", "nodeC"}) {
    BOOST_REQUIRE_MESSAGE(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", node), kWait),
                          node << " not online; log:\n" << monitor->log());
  }
  a.command("sensor_set_value 0x20 0 3 0 1");   // nodeA: FAN1
  b.command("sensor_set_value 0x20 0 2 95 1");  // nodeB: CPU2
  c.command("sensor_set_value 0x20 0 4 0 0");   // nodeC: FAN2, sweep only
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_FANFAIL", "nodeA", "FAN1"), kWait));
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_OVERTEMP", "nodeB", "CPU2 Temp"), kWait));
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_FANFAIL", "nodeC", "FAN2"), kWait));
  // Each fault is reported for its own node only.
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_FANFAIL", "nodeB")), 0u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_OVERTEMP", "nodeA")), 0u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_FANFAIL", "nodeC", "FAN1")), 0u);
}

BOOST_AUTO_TEST_CASE(unreachable_bmc_and_bad_credentials_warn_once_retry_and_spare_the_others) {
  MonitorRig rig;
  IpmiSimProcess good, locked;
  const int dead_port = freePort();  // nothing listens here (yet)
  rig.writeCredentials("* admin secret\nlocked admin wrong-password\n");
  auto monitor = rig.startMonitor({"good=" + good.address(), "locked=" + locked.address(),
                                   "dead=127.0.0.1:" + std::to_string(dead_port)});
  BOOST_REQUIRE(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "good"), kWait));
  auto bad = rig.events.waitFor(named("FTB_IPMI_MONITOR_TROUBLE", "locked"), kWait);
  auto dead = rig.events.waitFor(named("FTB_IPMI_MONITOR_TROUBLE", "dead"), kWait);
  BOOST_REQUIRE_MESSAGE(bad && dead, "missing MONITOR_TROUBLE; log:\n" << monitor->log());
  BOOST_CHECK(bad->severity == Severity::kWarning);
  BOOST_CHECK_EQUAL(field(*bad, "problem"), "credentials");
  BOOST_CHECK_EQUAL(field(*dead, "problem"), "unreachable");

  // The healthy BMC is watched all along.
  good.command("sensor_set_value 0x20 0 3 0 0");
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_FANFAIL", "good", "FAN1"), kWait));

  // Retries (200, 400, 800, 1000 ms ...) go on without repeating the warning:
  // counted once the two BMCs' failed retries (the debug log's "still
  // failing") number six, not after a sleep a loaded machine may fill with
  // fewer retries.
  BOOST_CHECK_MESSAGE(
      ftb::testing::waitFor([&] { return occurrences(monitor->log(), "still failing") >= 6; }, 30s),
      "fewer than six failed retries logged:\n" << monitor->log());
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_MONITOR_TROUBLE", "locked")), 1u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_MONITOR_TROUBLE", "dead")), 1u);
  BOOST_CHECK_EQUAL(rig.events.count(named("FTB_IPMI_MONITOR_TROUBLE", "good")), 0u);
  const std::string log = monitor->log();
  BOOST_CHECK_MESSAGE(log.find("still failing") != std::string::npos, "no retries logged:\n" << log);

  // A BMC appearing where there was none is picked up by the retries.
  IpmiSimProcess late(dead_port);
  auto online = rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "dead"), kWait);
  BOOST_REQUIRE_MESSAGE(online, "retries did not find the new BMC; log:\n" << monitor->log());
  BOOST_CHECK_EQUAL(field(*online, "recovered"), "true");
  BOOST_CHECK(monitor->waitExit(0ms) == std::nullopt);  // still running
  BOOST_CHECK_EQUAL(monitor->stop(), 0);  // and it shuts down cleanly on SIGTERM
}

BOOST_AUTO_TEST_CASE(node_without_bmc_says_so_once_and_exits_zero) {
  ftb::testing::TempDir dir;
  MonitorProcess monitor({"--inband-device=" + dir.path() + "/ipmi0",  // no such device
                          "--agent-endpoint=ipc://" + dir.path() + "/no-agent.sock"});
  const auto status = monitor.waitExit(kWait);
  BOOST_REQUIRE_MESSAGE(status, "ftb-ipmi kept running on a node without BMC");
  BOOST_CHECK_EQUAL(*status, 0);
  const std::string log = monitor.log();
  const auto first = log.find("no BMC on this node");
  BOOST_CHECK_MESSAGE(first != std::string::npos, "no info line:\n" << log);
  BOOST_CHECK(log.find("no BMC on this node", first + 1) == std::string::npos);
  BOOST_CHECK(log.find("[info]") != std::string::npos);
  BOOST_CHECK(log.find("[error]") == std::string::npos && log.find("[warning]") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(credentials_file_readable_by_others_is_refused) {
  MonitorRig rig;
  rig.writeCredentials("* admin secret\n", 0644);
  MonitorProcess monitor(rig.flags({"node1=127.0.0.1:" + std::to_string(freePort())}));
  const auto status = monitor.waitExit(10s);
  BOOST_REQUIRE(status);
  BOOST_CHECK_EQUAL(*status, 2);
  const std::string log = monitor.log();
  BOOST_CHECK_MESSAGE(log.find("readable only by root") != std::string::npos &&
                          log.find("chmod 600") != std::string::npos,
                      "unclear error:\n" << log);
}
