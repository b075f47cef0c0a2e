// A lost agent is announced once, as FTB_NODE_LOST, with what lived there
// (docs/RECOVERY_EVENTS.md, "A lost node"): real agents in a chain
// root - middle - last on loopback, a ranked client on the middle one, the
// middle agent SIGKILLed. Its parent (the root) announces it; its child (the
// last agent) reports only its lost link.
#define BOOST_TEST_MODULE node_lost
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include "client/client.h"
#include "tests/integration/tree/formed_chain.h"
#include "tests/integration/tree/tree_cluster.h"
#include "tests/support/event_collector.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

std::string tagOf(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_killed_agent_is_announced_once_by_its_parent_with_its_ranks) {
  TreeCluster cluster({.agents = 3, .seeds = 1, .fan_out = 1, .heartbeat_ms = 200, .timeout_ms = 5000,
                       .join_in_order = true});
  const std::vector<int> order = formedChain(cluster);
  const int root = order[0], middle = order[1], last = order[2];

  // Rank 2 of job J5 on the middle agent; the root hears it in a heartbeat.
  auto rank = Client::connect({.event_space = "FTB.TEST.RANKS",
                               .client_name = "rank2",
                               .job_id = "J5",
                               .rank = 2,
                               .agent_endpoint = cluster.agent(middle).ipcEndpoint()});
  BOOST_TEST_REQUIRE(rank.ok(), rank.status().toString());
  bool heard = false;
  for (auto deadline = std::chrono::steady_clock::now() + 20s; !heard && std::chrono::steady_clock::now() < deadline;) {
    if (auto info = queryTree(cluster.agent(root).tcpEndpoint(), 2s)) {
      for (const auto& link : info->links()) heard = heard || link.job_ranks() == "J5:2";
    }
  }
  BOOST_TEST_REQUIRE(heard, "the root never heard of rank 2 on the middle agent");

  EventCollector at_root(cluster.agent(root).ipcEndpoint(), "event_space=FTB.AGENT");
  EventCollector at_last(cluster.agent(last).ipcEndpoint(), "event_space=FTB.AGENT");
  cluster.kill(middle);
  const auto lost = at_root.waitFor([](const Event& e) { return e.event_name == "FTB_NODE_LOST"; }, 30s);
  BOOST_TEST_REQUIRE(lost.has_value(), "the root did not announce the middle agent");
  BOOST_TEST(tagOf(*lost, "node") == "agent" + std::to_string(middle));
  BOOST_TEST(tagOf(*lost, "announcer") == "agent" + std::to_string(root));
  BOOST_TEST(tagOf(*lost, "link") == "child");
  BOOST_TEST(tagOf(*lost, "jobs") == "J5");
  BOOST_TEST(tagOf(*lost, "job_ranks") == "J5:2");
  BOOST_TEST(tagOf(*lost, "clients") == "1");
  BOOST_TEST(tagOf(*lost, "corr") == "node-agent" + std::to_string(middle) + "-" + tagOf(*lost, "incarnation"));
  BOOST_TEST((lost->severity == Severity::kError));

  // The last agent reports its lost parent but announces nothing: had it
  // announced, its own FTB_NODE_LOST would have reached its local subscriber
  // with that report, before the root's could arrive through the repaired tree.
  const auto from_root = at_last.waitForIndex(
      [&](const Event& e) { return e.event_name == "FTB_NODE_LOST" && tagOf(e, "corr") == tagOf(*lost, "corr"); }, 30s);
  BOOST_TEST_REQUIRE(from_root.has_value(), "the root's announcement never reached the last agent");
  BOOST_TEST(at_last.count([](const Event& e) { return e.event_name == "FTB_AGENT_PARENT_LOST"; }) >= 1u);
  BOOST_TEST(at_last.count([](const Event& e) { return e.event_name == "FTB_NODE_LOST"; }) == 1u);
}

}  // namespace ftb::testing
