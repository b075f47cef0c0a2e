// When a repair leaves a gap that no agent can replay any more (it fell out
// of their retention window), the subscriber is told: the lost events reach it
// as missed, before what followed them, and never silently.
#define BOOST_TEST_MODULE tree_loss
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <algorithm>

#include "tests/integration/tree/stream_check.h"
#include "tests/integration/tree/formed_chain.h"
#include "tests/integration/tree/tree_cluster.h"
#include "tests/support/test_clients.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

// The stream's numbered events a subscriber received (canaries aside).
std::vector<uint64_t> streamed(const Recorder& subscriber) {
  std::vector<uint64_t> seqs;
  for (const auto& p : subscriber.payloads()) {
    if (p.rfind("canary", 0) != 0) seqs.push_back(std::stoull(p));
  }
  return seqs;
}

BOOST_AUTO_TEST_CASE(events_beyond_the_retention_window_reach_the_subscriber_as_missed) {
  // A chain (fan-out 1) whose agents keep only 5 events for replay. No PINGs
  // and a 1 s link timeout: a loaded machine's late heartbeat is not taken
  // for a loss, and the stop below is found by the timeout alone.
  TreeCluster cluster({.agents = 3,
                       .seeds = 1,
                       .fan_out = 1,
                       .heartbeat_ms = 100,
                       .timeout_ms = 1000,
                       .extra_flags = {"--tree-retention-events", "5", "--tree-ping-ms", "0"},
                       .join_in_order = true});
  const std::vector<int> order = formedChain(cluster);
  const int root = order[0], middle = order[1], last = order[2];

  Recorder subscriber(cluster.agent(last).ipcEndpoint(), "event_space=FTB.TREETEST.*", "sub2");
  Recorder watcher(cluster.agent(last).ipcEndpoint(), "event_name=FTB_AGENT_EVENTS_LOST", "watcher");
  Recorder* subs[] = {&subscriber};
  BOOST_TEST_REQUIRE(awaitRoutes({cluster.agent(root).ipcEndpoint()}, "FTB.TREETEST.PUB", {subs[0]}));

  // While the root streams (3 s), the middle agent falls silent (SIGSTOP: its
  // connections stay open, so only the link timeout finds it; a killed
  // process is found within milliseconds, too fast for this test). Until the
  // last agent has re-attached to the root, the root's events have nowhere to
  // go, and by then it keeps only the last 5 of them.
  Streamer stream(cluster.agent(root).ipcEndpoint(), "FTB.TREETEST.PUB", "pub0", 6000, 2000);
  BOOST_TEST_REQUIRE(waitFor([&] { return subscriber.total() > 300; }, 20s));
  BOOST_TEST_REQUIRE(::kill(cluster.agent(middle).pid(), SIGSTOP) == 0);
  stream.join();
  BOOST_TEST_REQUIRE(!stream.failed(), stream.error());
  const uint64_t published = stream.published();

  BOOST_TEST_REQUIRE(
      waitFor([&] { return streamed(subscriber).size() + subscriber.missed() >= published; }, 30s),
      "delivered " << streamed(subscriber).size() << " + missed " << subscriber.missed() << " of "
                   << published);
  const auto seqs = streamed(subscriber);
  BOOST_TEST(seqs.size() + subscriber.missed() == published);
  BOOST_TEST(subscriber.missed() > 0u, "the repair was expected to outrun the retention window");
  BOOST_TEST(std::is_sorted(seqs.begin(), seqs.end()));
  const bool duplicate = std::adjacent_find(seqs.begin(), seqs.end()) != seqs.end();
  BOOST_TEST(!duplicate, "a duplicate arrived");
  BOOST_TEST(seqs.back() == published, "the stream's last event did not arrive");
  BOOST_TEST_REQUIRE(waitFor([&] { return !watcher.payloads().empty(); }, 10s));
  BOOST_TEST(watcher.payloads().front().find("space=FTB.TREETEST.PUB") != std::string::npos,
             watcher.payloads().front());
  BOOST_TEST(watcher.payloads().front().find("cause=not-retained") != std::string::npos,
             watcher.payloads().front());
  cluster.kill(middle);  // the silent agent
}

bool hasLinkTo(const proto::TreeInfo& info, const std::string& address) {
  return std::any_of(info.links().begin(), info.links().end(),
                     [&](const proto::TreeLinkInfo& l) { return l.node().address() == address; });
}

// A chain whose root keeps 1 event for replay; the subscriber at the end.
// Nothing but a link timeout of 30 s may find the frozen agent (PINGs off: by
// default they find it within 180 ms), which leaves room to publish a burst
// while it is frozen but not yet declared dead: the root sends the burst to
// it, where it is lost. (At 1.5 s, then 5 s, a CI machine busy compiling
// took longer than that to route the burst.) The repair after it is killed
// does not wait for that timeout (a dead process's connections close at
// once). Its child re-attaches to the root, which has seen the burst but
// keeps none of it.
void checkLostTailIsReported(int agents) {
  TreeCluster cluster({.agents = agents,
                       .seeds = 1,
                       .fan_out = 1,
                       .heartbeat_ms = 100,
                       .timeout_ms = 30000,
                       .extra_flags = {"--tree-retention-events", "1", "--tree-ping-ms", "0"}});
  const std::vector<int> order = formedChain(cluster);
  const int frozen = order[1], below = order[2], last = order.back();
  const std::string root = cluster.agent(order[0]).ipcEndpoint();

  Recorder subscriber(cluster.agent(last).ipcEndpoint(), "event_space=FTB.TREETEST.*", "sub");
  Recorder at_root(root, "event_space=FTB.TREETEST.*", "sub0");  // what the root has routed
  Recorder evicted(root, "event_space=FTB.EVICTTEST", "evict0");
  BOOST_TEST_REQUIRE(awaitRoutes({root}, "FTB.TREETEST.PUB", {&subscriber, &at_root}));

  auto publisher = connectOrFail(root, "FTB.TREETEST.PUB", "pub0");
  BOOST_TEST_REQUIRE(publisher->declare({{"TICK", Severity::kInfo}}).ok());
  auto publish = [&](uint64_t from, uint64_t to) {
    for (uint64_t i = from; i <= to; ++i) {
      BOOST_TEST_REQUIRE(publisher->publish("TICK", std::to_string(i)).ok());
    }
  };
  constexpr uint64_t kHead = 20, kTail = 100;
  publish(1, kHead);
  BOOST_TEST_REQUIRE(waitFor([&] { return streamed(subscriber).size() == kHead; }, 10s));

  // Freeze the root's child; the tail goes to it and no further. Then
  // another publisher pushes the tail out of the root's retention.
  BOOST_TEST_REQUIRE(::kill(cluster.agent(frozen).pid(), SIGSTOP) == 0);
  publish(kHead + 1, kHead + kTail);
  auto evictor = connectOrFail(root, "FTB.EVICTTEST", "evict0");
  BOOST_TEST_REQUIRE(evictor->declare({{"PUSH", Severity::kInfo}}).ok());
  BOOST_TEST_REQUIRE(evictor->publish("PUSH", "out of retention").ok());
  BOOST_TEST_REQUIRE(waitFor([&] { return streamed(at_root).size() == kHead + kTail; }, 10s));
  BOOST_TEST_REQUIRE(waitFor([&] { return evicted.total() == 1u; }, 10s));
  // The root routed all of it while the frozen agent was still its child:
  // the tail went to it only (else the machine was too slow for the link timeout).
  const auto root_info = queryTree(cluster.agent(order[0]).tcpEndpoint(), 5s);
  const auto below_info = queryTree(cluster.agent(below).tcpEndpoint(), 5s);  // the frozen agent's child
  BOOST_TEST_REQUIRE(root_info.has_value());
  BOOST_TEST_REQUIRE(below_info.has_value());
  BOOST_TEST_REQUIRE(hasLinkTo(*root_info, cluster.agent(frozen).tcpEndpoint()),
                     "the root dropped the frozen agent before the burst was routed");
  BOOST_TEST_REQUIRE(below_info->path_size() == 3, "the frozen agent's child re-attached before the burst was routed");
  cluster.kill(frozen);

  // The root says the tail is gone (agent2 passes that on down the chain),
  // and the subscriber's agent reports it as missed at once: without that
  // no later event would ever reveal the gap.
  BOOST_TEST_REQUIRE(
      waitFor([&] { return streamed(subscriber).size() + subscriber.missed() >= kHead + kTail; }, 20s),
      "delivered " << streamed(subscriber).size() << " + missed " << subscriber.missed() << " of "
                   << kHead + kTail);
  const auto seqs = streamed(subscriber);
  BOOST_TEST(seqs.size() == kHead);
  BOOST_TEST(subscriber.missed() == kTail);
  BOOST_TEST(std::is_sorted(seqs.begin(), seqs.end()));
  const bool duplicate = std::adjacent_find(seqs.begin(), seqs.end()) != seqs.end();
  BOOST_TEST(!duplicate, "a duplicate arrived");
  BOOST_TEST(seqs.back() == kHead);
}

BOOST_AUTO_TEST_CASE(a_lost_stream_tail_beyond_the_retention_reaches_the_subscriber_as_missed) {
  checkLostTailIsReported(3);
}

BOOST_AUTO_TEST_CASE(a_gone_notice_travels_on_to_the_subscriber_further_down) {
  checkLostTailIsReported(4);
}

}  // namespace
}  // namespace ftb::testing
