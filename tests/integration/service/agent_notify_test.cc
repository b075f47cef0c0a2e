// ftb-agent under the real sd_notify protocol, as systemd runs a Type=notify
// unit: the test is the service manager (a unix datagram socket named by
// NOTIFY_SOCKET) and checks what the agent tells it. READY=1 only once a client
// can connect, never from an agent that could not bind; WATCHDOG=1 at half of
// WATCHDOG_USEC while the event loop turns, none while it is stopped
// (SIGSTOP), again after SIGCONT; STOPPING=1 on SIGTERM.
#define BOOST_TEST_MODULE agent_notify
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>

#include "client/client.h"
#include "tests/support/agent_process.h"
#include "tests/support/notify_socket.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::hasLine;
using ftb::testing::NotifySocket;
using ftb::testing::runfile;
using ftb::testing::spawnNotified;
using ftb::testing::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::string> agentArgs(const std::string& ipc_endpoint) {
  return {runfile("agent/ftb-agent"), "--ipc-endpoint=" + ipc_endpoint, "--tcp-endpoint=none",
          "--log-level=warn"};
}

// SIGTERM, then the agent must say STOPPING=1 and exit 0.
void terminateAndExpectStopping(pid_t pid, NotifySocket& notify) {
  BOOST_REQUIRE_EQUAL(kill(pid, SIGTERM), 0);
  BOOST_CHECK_MESSAGE(notify.receiveLine("STOPPING=1", 10s), "no STOPPING=1 after SIGTERM");
  int status = 0;
  BOOST_REQUIRE_EQUAL(waitpid(pid, &status, 0), pid);
  BOOST_CHECK(WIFEXITED(status));
  BOOST_CHECK_EQUAL(WEXITSTATUS(status), 0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(ready_only_once_a_client_can_connect) {
  NotifySocket notify;
  TempDir dir;
  const std::string socket_path = dir.path() + "/agent.sock";
  const std::string endpoint = "ipc://" + socket_path;
  const pid_t pid = spawnNotified(agentArgs(endpoint), notify);

  auto ready = notify.receiveLine("READY=1", 10s);
  BOOST_REQUIRE_MESSAGE(ready, "the agent never sent READY=1");
  // At the moment READY arrives the socket must exist and serve, with no retry grace.
  BOOST_CHECK_MESSAGE(std::filesystem::exists(socket_path), "READY=1 before the IPC socket exists");
  // The stream socket beside it (--local-endpoint auto) serves from READY on too.
  const std::string stream = "unix://" + dir.path() + "/agent.stream";
  BOOST_CHECK_MESSAGE(hasLine(*ready, "STATUS=serving on " + endpoint + ", " + stream),
                      "datagram: " << *ready);
  for (const std::string& e : {endpoint, stream}) {
    auto client = ftb::Client::connect({.event_space = "FTB.TEST.NOTIFY",
                                        .client_name = "notify-test",
                                        .agent_endpoint = e,
                                        .connect_timeout = 1000ms});
    BOOST_REQUIRE_MESSAGE(client.ok(), "connect to " << e << " right after READY=1: "
                                                     << client.status().toString());
  }

  terminateAndExpectStopping(pid, notify);
}

BOOST_AUTO_TEST_CASE(no_ready_from_an_agent_that_cannot_bind) {
  AgentProcess first({"--tcp-endpoint=none"});
  NotifySocket notify;
  const pid_t pid = spawnNotified(agentArgs(first.ipcEndpoint()), notify);
  int status = 0;
  BOOST_REQUIRE(ftb::testing::waitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }));
  BOOST_CHECK(WIFEXITED(status));
  BOOST_CHECK_NE(WEXITSTATUS(status), 0);
  // The process is gone: everything it ever sent is already queued on our socket.
  while (auto datagram = notify.receive(0ms)) {
    BOOST_CHECK_MESSAGE(!hasLine(*datagram, "READY=1"), "READY=1 from an agent that exited: " << *datagram);
  }
}

BOOST_AUTO_TEST_CASE(watchdog_is_fed_only_while_the_loop_turns) {
  constexpr auto kWatchdog = 1000ms;
  NotifySocket notify;
  TempDir dir;
  const pid_t pid =
      spawnNotified(agentArgs("ipc://" + dir.path() + "/agent.sock"), notify, kWatchdog);
  BOOST_REQUIRE(notify.receiveLine("READY=1", 10s));

  // Cadence, counted over ten intervals rather than gap by gap (a gap seen
  // here includes this process's own scheduling on a loaded machine): the
  // agent pings once half an interval has passed, so 13 to 20 times when the
  // machine is quiet. Only the upper bound is the agent's promise (never more
  // often than every half interval: at most 21); how few arrive on a starved
  // machine is the scheduler's, so the lower bound only says the loop pings at
  // all. A ping on every loop turn (a quarter interval apart at most) gives 40.
  while (notify.receive(0ms)) {
  }  // what came before the window
  constexpr auto kWindow = 10 * kWatchdog;
  int pings = 0;
  const auto until = Clock::now() + kWindow;
  for (auto left = kWindow; left > 0ms;
       left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now())) {
    if (notify.receiveLine("WATCHDOG=1", left)) ++pings;
  }
  BOOST_TEST_MESSAGE(pings << " WATCHDOG=1 in " << kWindow.count() << " ms");
  BOOST_CHECK_GE(pings, 1);
  BOOST_CHECK_LE(pings, 21);

  // A stopped loop must not feed the watchdog.
  BOOST_REQUIRE_EQUAL(kill(pid, SIGSTOP), 0);
  int status = 0;
  BOOST_REQUIRE_EQUAL(waitpid(pid, &status, WUNTRACED), pid);
  BOOST_REQUIRE(WIFSTOPPED(status));
  while (notify.receive(0ms)) {
  }  // pings sent before it stopped
  auto during_stop = notify.receive(kWatchdog * 3 / 2);
  BOOST_CHECK_MESSAGE(!during_stop, "datagram from a stopped agent: " << during_stop.value_or(""));

  BOOST_REQUIRE_EQUAL(kill(pid, SIGCONT), 0);
  // The first loop turn pings (more than half an interval has passed); 10 s for a loaded machine.
  BOOST_CHECK_MESSAGE(notify.receiveLine("WATCHDOG=1", 10s), "no WATCHDOG=1 after SIGCONT");

  terminateAndExpectStopping(pid, notify);
}
