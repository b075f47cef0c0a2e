// ftb-ib's own Prometheus metrics: the real binary (--backend=sysfs) over a
// sysfs tree the test writes, scraped over HTTP.
#define BOOST_TEST_MODULE ib_metrics
#include <signal.h>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "components/ib/testing/fake_sysfs.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/spawn.h"

using namespace std::chrono_literals;
using ftb::testing::MetricsText;
using ftb::testing::runfile;

BOOST_AUTO_TEST_CASE(sweeps_and_devices_are_exported) {
  ftb::testing::AgentProcess agent;
  ftb::ib::testing::FakeSysfs sys;
  sys.addDevice("mlx5_0", 2);
  sys.addDevice("mlx5_1", 1);
  ftb::testing::TempDir dir;
  const std::string address = "127.0.0.1:" + std::to_string(ftb::testing::freePort());
  const pid_t pid = ftb::testing::spawn(
      {runfile("components/ib/ftb-ib"), "--backend=sysfs", "--sysfs-root=" + sys.root(),
       "--agent-endpoint=" + agent.ipcEndpoint(), "--interval-ms=100", "--metrics-listen=" + address},
      dir.path() + "/ftb-ib.log");
  const MetricsText m = ftb::testing::scrapeUntil(address, [](const MetricsText& t) {
    return t.sum("ftb_ib_sweep_seconds_count") >= 3;
  });
  BOOST_TEST(m.types.at("ftb_ib_sweep_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_ib_devices") == 2);
  BOOST_TEST(m.sum("ftb_ib_monitor_troubles_total") == 0);
  BOOST_TEST(m.sum("ftb_build_info") == 1);
  BOOST_TEST(m.has("process_resident_memory_bytes"));
  BOOST_TEST(ftb::testing::promtoolCheckMetrics(ftb::testing::httpGet(address)) == "");
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
