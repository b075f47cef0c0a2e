// The agent's Prometheus endpoint: real agent, real traffic, scraped over HTTP
// and parsed by the tests' own exposition parser.
#define BOOST_TEST_MODULE metrics
#include <boost/test/unit_test.hpp>

#include "client/client.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
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
  const MetricsText m = scrapeUntil(agent.metricsAddress(), [](const MetricsText& t) {
    return t.sum("ftb_agent_clients") == 2 && t.sum("ftb_agent_subscriptions") == 1;
  });
  BOOST_TEST(m.types.at("ftb_agent_events_received_total") == "counter");
  BOOST_TEST(m.types.at("ftb_agent_delivery_latency_seconds") == "histogram");
  BOOST_TEST(m.sum("ftb_agent_events_received_total",
                   {{"namespace", ns}, {"severity", "INFO"}, {"source", "local"}}) == 10);
  BOOST_TEST(m.sum("ftb_agent_events_received_total",
                   {{"namespace", ns}, {"severity", "ERROR"}, {"source", "local"}}) == 5);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"source", "tree"}}) == 0);
  BOOST_TEST(m.sum("ftb_agent_events_delivered_total", {{"namespace", ns}, {"severity", "INFO"}}) == 10);
  BOOST_TEST(m.sum("ftb_agent_events_delivered_total", {{"namespace", ns}, {"severity", "ERROR"}}) == 5);
  BOOST_TEST(m.sum("ftb_agent_events_dropped_total") == 0);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_count") == 15);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_bucket", {{"le", "+Inf"}}) == 15);
  BOOST_TEST(m.sum("ftb_agent_delivery_latency_seconds_sum") > 0);
  BOOST_TEST(m.sum("ftb_agent_clients_connected_total") == 2);
  BOOST_TEST(m.sum("ftb_agent_client_queue_events") == 0);
  BOOST_TEST(m.has("ftb_agent_refusals_total", {{"reason", "publish_policy"}}));
  BOOST_TEST(m.sum("ftb_agent_tree_root") == 1);  // alone: the root of its own tree
}

BOOST_AUTO_TEST_CASE(namespace_labels_are_capped) {
  AgentProcess agent({"--metrics-listen=127.0.0.1:0", "--metrics-max-namespaces=2"});
  for (const std::string space : {"FTB.TEST.A", "FTB.TEST.B", "FTB.TEST.C", "FTB.TEST.D"}) {
    auto pub = connectOrFail(agent.ipcEndpoint(), space, "pub");
    BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kWarning}}).ok());
    BOOST_REQUIRE(pub->publish("NOTE").ok());
    BOOST_REQUIRE(pub->flush(5s).ok());
  }
  const MetricsText m = scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"namespace", "FTB.TEST.A"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"namespace", "FTB.TEST.B"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"namespace", "_other"}}) == 2);
  BOOST_TEST(!m.has("ftb_agent_events_received_total", {{"namespace", "FTB.TEST.C"}}));
}

BOOST_AUTO_TEST_CASE(a_taken_metrics_address_is_a_startup_error) {
  AgentProcess first({"--metrics-listen=127.0.0.1:0"});
  BOOST_CHECK_THROW(AgentProcess second({"--metrics-listen=" + first.metricsAddress()}),
                    std::runtime_error);
}
