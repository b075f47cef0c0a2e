// ftb-ib under the real sd_notify protocol (the test plays systemd on a
// NOTIFY_SOCKET): READY=1 once it serves, WATCHDOG=1 fed from its poll loop
// (none while it is stopped), STOPPING=1 on SIGTERM.
#define BOOST_TEST_MODULE ib_notify
#include <signal.h>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "components/ib/testing/fake_sysfs.h"
#include "tests/support/agent_process.h"
#include "tests/support/notify_socket.h"

using namespace std::chrono_literals;
using ftb::testing::hasLine;
using ftb::testing::NotifySocket;
using ftb::testing::runfile;

BOOST_AUTO_TEST_CASE(ready_watchdog_from_the_loop_and_stopping) {
  ftb::testing::AgentProcess agent;
  ftb::ib::testing::FakeSysfs sys;
  sys.addDevice("mlx5_0", 1);
  NotifySocket notify;
  // The default 10 s sweep interval: only the watchdog bounds the loop's waits.
  const pid_t pid = ftb::testing::spawnNotified(
      {runfile("components/ib/ftb-ib"), "--backend=sysfs", "--sysfs-root=" + sys.root(),
       "--agent-endpoint=" + agent.ipcEndpoint()},
      notify, 1s);

  auto ready = notify.receiveLine("READY=1", 10s);
  BOOST_REQUIRE_MESSAGE(ready, "no READY=1");
  BOOST_CHECK_MESSAGE(hasLine(*ready, "STATUS=watching RDMA adapters (backend sysfs)"), *ready);
  // Pings keep coming (their cadence is agent_notify_test's; a loaded
  // machine may delay one well past the half second they are due).
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE_MESSAGE(notify.receiveLine("WATCHDOG=1", 10s), "watchdog ping " << i << " missing");
  }
  // A stopped loop feeds nothing; it resumes when the process does.
  ::kill(pid, SIGSTOP);
  while (notify.receive(100ms)) {
  }  // what was sent before the stop
  BOOST_CHECK_MESSAGE(!notify.receive(1500ms), "a ping arrived while the monitor was stopped");
  ::kill(pid, SIGCONT);
  BOOST_CHECK(notify.receiveLine("WATCHDOG=1", 10s));

  ::kill(pid, SIGTERM);
  BOOST_CHECK_MESSAGE(notify.receiveLine("STOPPING=1", 5s), "no STOPPING=1 after SIGTERM");
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
