// The agent's Prometheus endpoint: real agent, real traffic, scraped over HTTP
// and parsed by the tests' own exposition parser.
#define BOOST_TEST_MODULE metrics
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "client/client.h"
#include "client/wire/codec.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/spawn.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::connectTo;
using ftb::testing::MetricsText;
using ftb::testing::scrapeMetrics;
using ftb::testing::scrapeUntil;

namespace {

void drain(ftb::Client& sub, ftb::SubscriptionId id, int n) {
  for (int i = 0; i < n; ++i) {
    auto got = sub.poll(id, 5s);
    BOOST_REQUIRE(got.ok());
    BOOST_REQUIRE_MESSAGE(got->has_value(), "event " << i << " did not arrive");
  }
}

struct StartFailure {
  int exit_code = -1;  // -1: did not exit on its own
  std::vector<std::string> lines;
};

// Runs ftb-agent with `metrics_listen` until it exits (10 s at most) and
// returns its exit code and what it wrote (stdout and stderr).
StartFailure startWithMetricsAt(const std::string& metrics_listen) {
  ftb::testing::TempDir dir;
  const std::string log = dir.path() + "/agent.log";
  const pid_t pid = ftb::testing::spawn({ftb::testing::runfile("agent/ftb-agent"),
                                         "--ipc-endpoint=ipc://" + dir.path() + "/agent.sock",
                                         "--tcp-endpoint=none", "--metrics-listen=" + metrics_listen},
                                        log);
  StartFailure out;
  int status = 0;
  if (ftb::testing::waitFor([&] { return ::waitpid(pid, &status, WNOHANG) == pid; })) {
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) out.lines.push_back(line);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(counts_match_the_traffic) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  BOOST_REQUIRE(!agent.metricsAddress().empty());
  auto sub = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.SUB", "sub");
  auto pub = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.METRICS", "pub");
  BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kInfo}, {"FAIL", ftb::Severity::kError}}).ok());
  auto id = sub->subscribe({.filter = "event_space=FTB.TEST.METRICS", .polling = true});
  BOOST_REQUIRE(id.ok());
  for (int i = 0; i < 10; ++i) BOOST_REQUIRE(pub->publish("NOTE", "n").ok());
  for (int i = 0; i < 5; ++i) BOOST_REQUIRE(pub->publish("FAIL", "f").ok());
  drain(*sub, *id, 15);

  const std::string ns = "FTB.TEST.METRICS";
  // The agent mirrors its state into the registry once per housekeeping turn,
  // and a scrape can fall in the middle of one (counters are collected before
  // gauges): one scrape that shows the whole turn after the traffic.
  const MetricsText m = scrapeUntil(agent.metricsAddress(), [](const MetricsText& t) {
    return t.sum("ftb_agent_clients") == 2 && t.sum("ftb_agent_subscriptions") == 1 &&
           t.sum("ftb_agent_clients_connected_total") >= 2 && t.sum("ftb_agent_client_queue_events") == 0;
  });
  BOOST_TEST(m.types.at("ftb_agent_events_received_total") == "counter");
  BOOST_TEST(m.types.at("ftb_agent_delivery_latency_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_agent_events_received_total",
                   {{"event_space", ns}, {"severity", "INFO"}, {"source", "local"}}) == 10);
  BOOST_TEST(m.sum("ftb_agent_events_received_total",
                   {{"event_space", ns}, {"severity", "ERROR"}, {"source", "local"}}) == 5);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"source", "tree"}}) == 0);
  BOOST_TEST(m.sum("ftb_agent_events_delivered_total", {{"event_space", ns}, {"severity", "INFO"}}) == 10);
  BOOST_TEST(m.sum("ftb_agent_events_delivered_total", {{"event_space", ns}, {"severity", "ERROR"}}) == 5);
  BOOST_TEST(m.sum("ftb_agent_events_dropped_total") == 0);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_count") == 15);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_bucket", {{"le", "+Inf"}}) == 15);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_sum") > 0);
  BOOST_TEST(m.sum("ftb_agent_clients_connected_total") == 2);
  BOOST_TEST(m.sum("ftb_agent_client_queue_events") == 0);
  BOOST_TEST(m.has("ftb_agent_refusals_total", {{"reason", "publish_policy"}}));
  BOOST_TEST(m.sum("ftb_agent_tree_root") == 1);  // alone: the root of its own tree
  BOOST_TEST(!m.has("ftb_agent_events_received_total", {{"namespace", ns}}));  // renamed: event_space
}

BOOST_AUTO_TEST_CASE(build_info_and_process_metrics_describe_the_agent) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  const MetricsText m = scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_build_info", {{"version", std::string(ftb::wire::kVersion)}}) == 1);
  BOOST_TEST(m.sum("process_open_fds") > 0);
  BOOST_TEST(m.sum("process_max_fds") >= m.sum("process_open_fds"));
  BOOST_TEST(m.sum("process_resident_memory_bytes") > 0);
  BOOST_TEST(m.sum("process_virtual_memory_bytes") >= m.sum("process_resident_memory_bytes"));
  BOOST_TEST(m.has("process_cpu_seconds_total"));
  // The agent's own start time, not the test's: within a minute of now.
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  BOOST_TEST(m.sum("process_start_time_seconds") <= now + 2);
  BOOST_TEST(m.sum("process_start_time_seconds") >= now - 60);
}

// Prometheus' own linter on a real scrape, with every labelled family populated.
BOOST_AUTO_TEST_CASE(promtool_finds_nothing_wrong) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  auto sub = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.SUB", "sub");
  auto pub = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.LINT", "pub");
  BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  auto id = sub->subscribe({.filter = "event_space=FTB.TEST.LINT", .polling = true});
  BOOST_REQUIRE(id.ok());
  BOOST_REQUIRE(pub->publish("NOTE", "n").ok());
  drain(*sub, *id, 1);
  const std::string text = ftb::testing::httpGet(agent.metricsAddress());
  BOOST_TEST(text.find("ftb_agent_delivery_latency_seconds_bucket") != std::string::npos);
  BOOST_TEST(ftb::testing::promtoolCheckMetrics(text) == "");
}

BOOST_AUTO_TEST_CASE(serves_on_ipv6) {
  AgentProcess agent({"--metrics-listen=[::1]:0"});
  BOOST_TEST(agent.metricsAddress().rfind("[::1]:", 0) == 0u);
  BOOST_TEST(scrapeMetrics(agent.metricsAddress()).sum("ftb_build_info") == 1);
}

// Stalled clients used to delay a scrape by a second each: 20 of them by 20 s,
// twice the bound below, which a loaded machine's scrape stays far within.
BOOST_AUTO_TEST_CASE(stalled_clients_do_not_delay_a_scrape) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  std::vector<int> stalled;
  for (int i = 0; i < 20; ++i) {
    stalled.push_back(connectTo(agent.metricsAddress()));
    BOOST_REQUIRE(stalled.back() >= 0);
  }
  const auto started = std::chrono::steady_clock::now();
  BOOST_TEST(scrapeMetrics(agent.metricsAddress()).sum("ftb_build_info") == 1);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  BOOST_TEST(took < 10.0, "the scrape took " << took << " s");
  for (int fd : stalled) ::close(fd);
}

BOOST_AUTO_TEST_CASE(a_refused_metrics_address_stops_startup_with_one_line) {
  AgentProcess first({"--metrics-listen=127.0.0.1:0"});
  const std::vector<std::pair<std::string, std::string>> cases{
      {"127.0.0.1:99999", "port 99999 is out of range"},
      {first.metricsAddress(), "Address already in use"},
      {"no-such-host.invalid:9810", "cannot resolve 'no-such-host.invalid'"},
  };
  for (const auto& [address, reason] : cases) {
    const StartFailure f = startWithMetricsAt(address);
    BOOST_TEST(f.exit_code > 0, address << " exit code " << f.exit_code);
    BOOST_REQUIRE_MESSAGE(f.lines.size() == 1u, address << ": " << f.lines.size() << " lines");
    BOOST_TEST(f.lines[0].find(address) != std::string::npos, f.lines[0]);
    BOOST_TEST(f.lines[0].find(reason) != std::string::npos, f.lines[0]);
  }
}

BOOST_AUTO_TEST_CASE(event_space_labels_are_capped) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0", "--metrics-max-namespaces=2"});
  for (const std::string space : {"FTB.TEST.A", "FTB.TEST.B", "FTB.TEST.C", "FTB.TEST.D"}) {
    auto pub = connectOrFail(agent.ipcEndpoint(), space, "pub");
    BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kWarning}}).ok());
    BOOST_REQUIRE(pub->publish("NOTE").ok());
    BOOST_REQUIRE(pub->flush(5s).ok());
  }
  const MetricsText m = scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"event_space", "FTB.TEST.A"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"event_space", "FTB.TEST.B"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"event_space", "_other"}}) == 2);
  BOOST_TEST(!m.has("ftb_agent_events_received_total", {{"event_space", "FTB.TEST.C"}}));
}

BOOST_AUTO_TEST_CASE(a_taken_metrics_address_is_a_startup_error) {
  AgentProcess first({"--metrics-listen=127.0.0.1:0"});
  BOOST_CHECK_THROW(AgentProcess second({"--metrics-listen=" + first.metricsAddress()}),
                    std::runtime_error);
}
