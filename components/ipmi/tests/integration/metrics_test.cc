// ftb-ipmi's own Prometheus metrics: the real binary watching OpenIPMI's
// ipmi_sim, scraped over HTTP; the BMC then dies and the metrics say so.
#define BOOST_TEST_MODULE ipmi_metrics
#include <boost/test/unit_test.hpp>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/spawn.h"

using namespace std::chrono_literals;
using ftb::testing::freePort;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorRig;
using ftb::ipmi::testing::named;
using ftb::testing::MetricsText;
using ftb::testing::scrapeUntil;

BOOST_AUTO_TEST_CASE(sweeps_errors_and_bmc_state_are_exported) {
  MonitorRig rig;
  IpmiSimProcess bmc;
  const std::string address = "127.0.0.1:" + std::to_string(freePort());
  auto monitor = rig.startMonitor({"node1=" + bmc.address()}, {"--metrics-listen=" + address});
  BOOST_REQUIRE(rig.events.waitFor(named("FTB_IPMI_BMC_ONLINE", "node1"), 20s));
  // Labelled by the node's name (its --bmc entry), not by host:port.
  const std::map<std::string, std::string> label{{"bmc", "node1"}};

  MetricsText m = scrapeUntil(
      address, [&](const MetricsText& t) { return t.sum("ftb_ipmi_sweep_seconds_count", label) >= 2; },
      30s);
  BOOST_TEST(m.types.at("ftb_ipmi_sweep_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_ipmi_bmc_up", label) == 1);
  BOOST_TEST(m.sum("ftb_ipmi_sweep_errors_total", label) == 0);
  BOOST_TEST(m.sum("ftb_ipmi_sweep_seconds_sum", label) > 0);
  BOOST_TEST(m.sum("ftb_ipmi_bmc_info", {{"bmc", "node1"}, {"address", bmc.address()}}) == 1);
  BOOST_TEST(!m.has("ftb_ipmi_bmc_up", {{"bmc", bmc.address()}}));
  BOOST_TEST(m.sum("ftb_build_info") == 1);
  BOOST_TEST(m.has("process_open_fds"));
  BOOST_TEST(ftb::testing::promtoolCheckMetrics(ftb::testing::httpGet(address)) == "");

  bmc.kill();
  m = scrapeUntil(
      address,
      [&](const MetricsText& t) {
        return t.sum("ftb_ipmi_bmc_up", label) == 0 &&
               t.sum("ftb_ipmi_sweep_errors_total", label) +
                       t.sum("ftb_ipmi_connect_errors_total", label) >= 1;
      },
      30s);
  BOOST_TEST(m.sum("ftb_ipmi_bmc_up", label) == 0);
}
