// 31 real agents on loopback form one tree; events cross it exactly once in
// order; killing interior agents and the root, and restarting one, loses
// nothing.
#define BOOST_TEST_MODULE tree_loopback
#include <boost/test/unit_test.hpp>

#include <iostream>

#include "tests/integration/tree/stream_check.h"
#include "tests/integration/tree/tree_cluster.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

// Clients live on the youngest agents (started last, never elected root
// while older ones live); faults hit only the others.
constexpr int kAgents = 31;
constexpr int kFirstClientAgent = 25;

std::map<std::string, uint64_t> expectedFrom(std::vector<std::unique_ptr<Streamer>>& streams) {
  std::map<std::string, uint64_t> expected;
  for (auto& s : streams) {
    s->join();
    BOOST_TEST_REQUIRE(!s->failed(), s->error());
    expected[s->publisherKey()] = s->published();
  }
  return expected;
}

BOOST_AUTO_TEST_CASE(thirty_one_agents_form_one_tree_and_carry_events_exactly_once_in_order) {
  TreeCluster cluster({.agents = kAgents, .fan_out = 4});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  std::size_t deepest = 0;
  for (auto& info : cluster.infos()) deepest = std::max<std::size_t>(deepest, info->path_size());
  BOOST_TEST(deepest >= 3u, "a fan-out of 4 over 31 agents needs depth; deepest path " << deepest);

  std::vector<std::unique_ptr<Recorder>> subscribers;
  for (int i : {28, 29, 30}) {
    subscribers.push_back(std::make_unique<Recorder>(cluster.agent(i).ipcEndpoint(),
                                                     "event_space=FTB.TREETEST.*",
                                                     "sub" + std::to_string(i)));
  }
  std::vector<Recorder*> subs;
  for (auto& s : subscribers) subs.push_back(s.get());
  std::vector<std::string> publisher_endpoints;
  for (int i : {3, 17, 26}) publisher_endpoints.push_back(cluster.agent(i).ipcEndpoint());
  BOOST_TEST_REQUIRE(awaitRoutes(publisher_endpoints, "FTB.TREETEST.PUB", subs));
  std::vector<std::unique_ptr<Streamer>> streams;
  for (int i : {3, 17, 26}) {
    streams.push_back(std::make_unique<Streamer>(cluster.agent(i).ipcEndpoint(), "FTB.TREETEST.PUB",
                                                 "pub" + std::to_string(i), 2000, 20000));
  }
  auto expected = expectedFrom(streams);
  for (auto& sub : subscribers) {
    // Wait on the promise itself: total() also counts awaitRoutes' canaries,
    // so a count can be reached while stream events are still on their way.
    waitFor([&] { return sub->check(expected).empty(); }, 20s);
    BOOST_TEST(sub->check(expected) == "");
    BOOST_TEST(sub->missed() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(killing_interior_agents_and_the_root_loses_nothing_and_a_restart_rejoins) {
  TreeCluster cluster({.agents = kAgents, .fan_out = 3});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  Recorder watcher(cluster.agent(30).ipcEndpoint(), "event_space=FTB.AGENT", "topology-watcher");
  std::vector<std::unique_ptr<Recorder>> subscribers;
  std::vector<Recorder*> subs;
  for (int i : {28, 29, 30}) {
    subscribers.push_back(std::make_unique<Recorder>(cluster.agent(i).ipcEndpoint(),
                                                     "event_space=FTB.TREETEST.*",
                                                     "sub" + std::to_string(i)));
    subs.push_back(subscribers.back().get());
  }
  std::vector<std::string> publisher_endpoints;
  for (int i : {25, 26, 27}) publisher_endpoints.push_back(cluster.agent(i).ipcEndpoint());
  BOOST_TEST_REQUIRE(awaitRoutes(publisher_endpoints, "FTB.TREETEST.PUB", subs));

  std::vector<std::unique_ptr<Streamer>> streams;
  for (const auto& endpoint : publisher_endpoints) {
    streams.push_back(std::make_unique<Streamer>(endpoint, "FTB.TREETEST.PUB", "pub", 6000, 1000));
  }
  // An interior agent, then the root, while the streams run; then a restart.
  auto pickInterior = [&] {
    for (int i : cluster.interior()) {
      if (i < kFirstClientAgent) return i;
    }
    return -1;
  };
  const int interior = pickInterior();
  BOOST_TEST_REQUIRE(interior >= 0);
  cluster.kill(interior);
  std::string repaired = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(repaired.empty(), "after killing agent" << interior << ": " << repaired);
  const int root = cluster.root();
  BOOST_TEST_REQUIRE(root >= 0);
  BOOST_TEST_REQUIRE(root < kFirstClientAgent);
  cluster.kill(root);
  repaired = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(repaired.empty(), "after killing the root agent" << root << ": " << repaired);
  BOOST_TEST(cluster.root() != root);
  cluster.restart(interior);
  repaired = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(repaired.empty(), "after restarting agent" << interior << ": " << repaired);

  auto expected = expectedFrom(streams);
  for (auto& sub : subscribers) {
    waitFor([&] { return sub->check(expected).empty(); }, 30s);
    BOOST_TEST(sub->check(expected) == "");
    BOOST_TEST(sub->missed() == 0u);
  }
  const auto times = repairTimesMs(watcher);
  BOOST_TEST(!times.empty(), "the agents reported no repair");
  std::cout << "repair times (ms, from the agents' FTB.AGENT events):";
  for (double t : times) std::cout << " " << t;
  std::cout << "\n";
}

}  // namespace
}  // namespace ftb::testing
