// Chaos: while publishers on several agents stream 100,000 events, random
// interior agents and the root are killed with SIGKILL and some restarted.
// Every subscriber on a surviving agent must receive every event of every
// surviving publisher exactly once, in publish order. Prints repair times.
#define BOOST_TEST_MODULE tree_chaos
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <iostream>
#include <random>

#include "tests/integration/tree/stream_check.h"
#include "tests/integration/tree/tree_cluster.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kAgents = 16;
constexpr int kFirstClientAgent = 10;  // agents 10..15 host clients and are never killed
constexpr uint64_t kEventsPerPublisher = 25000;

BOOST_AUTO_TEST_CASE(kills_and_restarts_during_a_100k_event_stream_lose_and_duplicate_nothing) {
  const unsigned seed = std::random_device{}();
  std::cout << "chaos seed " << seed << "\n";
  std::mt19937 random(seed);
  // Every agent may retain the whole stream for replay: the default 4 MiB
  // holds about 1.9 s of these 10,000 events/s (223 bytes each, as
  // ftb_agent_tree_retained_bytes counts them), less than a repair and its
  // fills can take on a starved machine, and events dropped from every relay
  // log are lost by design (reported: tree_loss_test). Here a loss is a fault.
  TreeCluster cluster({.agents = kAgents, .fan_out = 2,
                       .extra_flags = {"--tree-retention-bytes", std::to_string(64 << 20)}});
  std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);

  Recorder watcher(cluster.agent(15).ipcEndpoint(), "event_space=FTB.AGENT", "topology-watcher");
  std::vector<std::unique_ptr<Recorder>> subscribers;
  std::vector<Recorder*> subs;
  for (int i : {14, 15, 10}) {
    subscribers.push_back(std::make_unique<Recorder>(cluster.agent(i).ipcEndpoint(),
                                                     "event_space=FTB.CHAOS.*, severity>=info",
                                                     "sub" + std::to_string(i)));
    subs.push_back(subscribers.back().get());
  }
  std::vector<std::string> publisher_endpoints;
  for (int i : {10, 11, 12, 13}) publisher_endpoints.push_back(cluster.agent(i).ipcEndpoint());
  BOOST_TEST_REQUIRE(awaitRoutes(publisher_endpoints, "FTB.CHAOS.PUB", subs));

  std::vector<std::unique_ptr<Streamer>> streams;
  for (const auto& endpoint : publisher_endpoints) {
    streams.push_back(std::make_unique<Streamer>(endpoint, "FTB.CHAOS.PUB", "pub",
                                                 kEventsPerPublisher, 2500));
  }
  // About ten seconds of streaming: a fault every 1.2 s.
  int kills = 0, restarts = 0;
  std::vector<int> dead;
  for (int round = 0; round < 7; ++round) {
    std::this_thread::sleep_for(1200ms);  // pacing of the faults, not synchronisation
    int victim = -1;
    if (round % 3 == 2) {
      victim = cluster.root();
    } else {
      auto interior = cluster.interior();
      std::erase_if(interior, [](int i) { return i >= kFirstClientAgent; });
      if (!interior.empty()) victim = interior[random() % interior.size()];
    }
    if (victim < 0 || victim >= kFirstClientAgent) continue;
    cluster.kill(victim);
    ++kills;
    dead.push_back(victim);
    if (random() % 2 == 0 && dead.size() > 1) {
      const int back = dead.front();
      dead.erase(dead.begin());
      cluster.restart(back);
      ++restarts;
    }
  }
  std::map<std::string, uint64_t> expected;
  for (auto& s : streams) {
    s->join();
    BOOST_TEST_REQUIRE(!s->failed(), s->error());
    expected[s->publisherKey()] = s->published();
  }
  problem = cluster.waitForOneTree(30s);
  BOOST_TEST(problem.empty(), problem);
  std::cout << kills << " agents killed, " << restarts << " restarted\n";
  for (auto& sub : subscribers) {
    waitFor([&] { return sub->check(expected).empty(); }, 60s);
    BOOST_TEST(sub->check(expected) == "");
    BOOST_TEST(sub->missed() == 0u);
  }
  // Which mechanism lost events, if any did: the tree after a repair (these
  // reports; a gap not filled within the reorder timeout) or a full queue
  // (missed beyond what these account for).
  for (const auto& p : watcher.payloads()) {
    if (p.find(" lost=") != std::string::npos) std::cout << "tree reported: " << p << "\n";
  }
  const std::vector<double> ms = repairTimesMs(watcher);
  BOOST_TEST(!ms.empty());
  if (!ms.empty()) {
    std::cout << ms.size() << " repairs: median " << ms[ms.size() / 2] << " ms, max " << ms.back()
              << " ms\n";
  }
}

}  // namespace
}  // namespace ftb::testing
