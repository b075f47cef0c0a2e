// When a repair leaves a gap that no agent can replay any more (it fell out
// of their retention window), the subscriber is told: the lost events reach it
// as missed, before what followed them, and never silently.
#define BOOST_TEST_MODULE tree_loss
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "tests/integration/tree/stream_check.h"
#include "tests/integration/tree/tree_cluster.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(events_beyond_the_retention_window_reach_the_subscriber_as_missed) {
  // A chain 0 - 1 - 2 (fan-out 1) whose agents keep only 5 events for replay.
  TreeCluster cluster({.agents = 3,
                       .seeds = 1,
                       .fan_out = 1,
                       .heartbeat_ms = 50,
                       .timeout_ms = 200,
                       .extra_flags = {"--tree-retention-events", "5"}});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  BOOST_TEST_REQUIRE(cluster.infos()[2]->path_size() == 3, "agent2 is not at the end of the chain");

  Recorder subscriber(cluster.agent(2).ipcEndpoint(), "event_space=FTB.TREETEST.*", "sub2");
  Recorder watcher(cluster.agent(2).ipcEndpoint(), "event_name=FTB_AGENT_EVENTS_LOST", "watcher");
  Recorder* subs[] = {&subscriber};
  BOOST_TEST_REQUIRE(awaitRoutes({cluster.agent(0).ipcEndpoint()}, "FTB.TREETEST.PUB", {subs[0]}));

  // While the root streams, the middle agent dies. Until agent2 has
  // re-attached to the root, the root's events have nowhere to go, and by
  // then it keeps only the last 5 of them.
  Streamer stream(cluster.agent(0).ipcEndpoint(), "FTB.TREETEST.PUB", "pub0", 3000, 2000);
  BOOST_TEST_REQUIRE(waitFor([&] { return subscriber.total() > 300; }, 20s));
  cluster.kill(1);
  stream.join();
  BOOST_TEST_REQUIRE(!stream.failed(), stream.error());
  const uint64_t published = stream.published();

  // Canaries also count as delivered; only the stream's numbered events are checked.
  auto streamed = [&] {
    std::vector<uint64_t> seqs;
    for (const auto& p : subscriber.payloads()) {
      if (p.rfind("canary", 0) != 0) seqs.push_back(std::stoull(p));
    }
    return seqs;
  };
  BOOST_TEST_REQUIRE(waitFor([&] { return streamed().size() + subscriber.missed() >= published; }, 30s),
                     "delivered " << streamed().size() << " + missed " << subscriber.missed()
                                  << " of " << published);
  const auto seqs = streamed();
  BOOST_TEST(seqs.size() + subscriber.missed() == published);
  BOOST_TEST(subscriber.missed() > 0u, "the repair was expected to outrun the retention window");
  BOOST_TEST(std::is_sorted(seqs.begin(), seqs.end()));
  const bool duplicate = std::adjacent_find(seqs.begin(), seqs.end()) != seqs.end();
  BOOST_TEST(!duplicate, "a duplicate arrived");
  BOOST_TEST(seqs.back() == published, "the stream's last event did not arrive");
  BOOST_TEST_REQUIRE(waitFor([&] { return !watcher.payloads().empty(); }, 10s));
  BOOST_TEST(watcher.payloads().front().find("space=FTB.TREETEST.PUB") != std::string::npos,
             watcher.payloads().front());
}

}  // namespace
}  // namespace ftb::testing
