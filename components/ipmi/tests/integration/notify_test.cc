// ftb-ipmi under the real sd_notify protocol (the test plays systemd on a
// NOTIFY_SOCKET): READY=1 once it is connected to the agent and its watchers
// run, then a BMC goes online; WATCHDOG=1 keeps coming; STOPPING=1 on SIGTERM.
#define BOOST_TEST_MODULE ipmi_notify
#include <boost/test/unit_test.hpp>

#include <stdlib.h>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "tests/support/notify_socket.h"

using namespace std::chrono_literals;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorRig;
using ftb::ipmi::testing::named;
using ftb::testing::hasLine;
using ftb::testing::NotifySocket;

BOOST_AUTO_TEST_CASE(ready_watchdog_and_stopping) {
  MonitorRig rig;
  IpmiSimProcess bmc;
  NotifySocket notify;
  // Only the monitor inherits these (the rig's agent is already running).
  setenv("NOTIFY_SOCKET", notify.path().c_str(), 1);
  setenv("WATCHDOG_USEC", "1000000", 1);
  auto monitor = rig.startMonitor({"node1=" + bmc.address()});
  unsetenv("NOTIFY_SOCKET");
  unsetenv("WATCHDOG_USEC");

  auto ready = notify.receiveLine("READY=1", 10s);
  BOOST_REQUIRE_MESSAGE(ready, "no READY=1; log:\n" << monitor->log());
  BOOST_CHECK_MESSAGE(hasLine(*ready, "STATUS=watching 1 BMC(s)"), "datagram: " << *ready);
  BOOST_CHECK(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "node1"), 20s));
  // Pings keep coming (their cadence is agent_notify_test's; a loaded
  // machine may delay one well past the half second they are due).
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE_MESSAGE(notify.receiveLine("WATCHDOG=1", 10s), "watchdog ping " << i << " missing");
  }
  BOOST_CHECK_EQUAL(monitor->stop(), 0);  // SIGTERM, exited cleanly
  BOOST_CHECK_MESSAGE(notify.receiveLine("STOPPING=1", 5s), "no STOPPING=1 after SIGTERM");
}
