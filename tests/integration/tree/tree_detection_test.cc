// How agents find a dead neighbour without waiting for the heartbeat timeout:
// a process death closes its connections (FIN/RST reach the peer), a silent
// death (a power cut, here a SIGSTOPped agent: sockets open, nothing answers)
// fails the ZMTP PINGs of its probe connections (when turned on). Those two tests switch the heartbeat timeout
// off (10 minutes), so the loss can only come from the connection and the
// test asserts on that mechanism, not on wall time. The last test runs the
// agents' defaults: a silent agent is found by the (adaptive) heartbeat
// timeout and its children re-attach; it prints the detection time.
#define BOOST_TEST_MODULE tree_detection
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <cstdio>

#include "tests/integration/tree/tree_cluster.h"
#include "tests/support/event_collector.h"

namespace ftb::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kByConnection[] = "its connection closed";

// A chain 0 - 1 - 2 (fan-out 1) whose heartbeat timeout never fires.
TreeCluster chain(std::vector<std::string> flags) {
  return TreeCluster({.agents = 3,
                      .seeds = 1,
                      .fan_out = 1,
                      .heartbeat_ms = 200,
                      .timeout_ms = 600000,
                      .extra_flags = std::move(flags)});
}

bool lostBy(const Event& e, const char* name) {
  return e.event_name == name && e.payload.find(kByConnection) != std::string::npos;
}

struct Resume {
  pid_t pid;
  ~Resume() { ::kill(pid, SIGCONT); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_killed_agent_is_lost_when_its_connections_close) {
  // No PINGs either: only the closed connection can tell.
  TreeCluster cluster = chain({"--tree-ping-ms", "0"});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  BOOST_TEST_REQUIRE(cluster.infos()[2]->path_size() == 3, "agent2 is not at the end of the chain");
  EventCollector parent(cluster.agent(0).ipcEndpoint(), "event_space=FTB.AGENT");
  EventCollector child(cluster.agent(2).ipcEndpoint(), "event_space=FTB.AGENT");

  cluster.kill(1);
  const auto child_lost = parent.waitFor([](const Event& e) { return lostBy(e, "FTB_AGENT_CHILD_LOST"); }, 20s);
  BOOST_TEST(child_lost.has_value(), "agent0 did not lose agent1 by its closed connection");
  const auto parent_lost = child.waitFor([](const Event& e) { return lostBy(e, "FTB_AGENT_PARENT_LOST"); }, 20s);
  BOOST_TEST(parent_lost.has_value(), "agent2 did not lose agent1 by its closed connection");
  const std::string healed = cluster.waitForOneTree();
  BOOST_TEST(healed.empty(), healed);
}

BOOST_AUTO_TEST_CASE(a_silent_agent_is_lost_when_its_connections_stop_answering_pings) {
  TreeCluster cluster = chain({"--tree-ping-ms", "50", "--tree-ping-timeout-ms", "150"});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  BOOST_TEST_REQUIRE(cluster.infos()[2]->path_size() == 3, "agent2 is not at the end of the chain");
  EventCollector parent(cluster.agent(0).ipcEndpoint(), "event_space=FTB.AGENT");
  EventCollector child(cluster.agent(2).ipcEndpoint(), "event_space=FTB.AGENT");

  Resume resume{cluster.agent(1).pid()};
  ::kill(cluster.agent(1).pid(), SIGSTOP);
  const auto child_lost = parent.waitFor([](const Event& e) { return lostBy(e, "FTB_AGENT_CHILD_LOST"); }, 20s);
  BOOST_TEST(child_lost.has_value(), "agent0 did not lose the stopped agent1 by its connection");
  const auto parent_lost = child.waitFor([](const Event& e) { return lostBy(e, "FTB_AGENT_PARENT_LOST"); }, 20s);
  BOOST_TEST(parent_lost.has_value(), "agent2 did not lose the stopped agent1 by its connection");
  cluster.kill(1);
}

BOOST_AUTO_TEST_CASE(with_the_defaults_a_stopped_agent_is_lost_and_its_child_reattaches) {
  // The agents' own heartbeat settings (0: no flag) and no PINGs: the default path.
  TreeCluster cluster({.agents = 3, .seeds = 1, .fan_out = 1, .heartbeat_ms = 0, .timeout_ms = 0});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  BOOST_TEST_REQUIRE(cluster.infos()[2]->path_size() == 3, "agent2 is not at the end of the chain");
  const std::string stopped_address = cluster.infos()[1]->self().address();
  EventCollector parent(cluster.agent(0).ipcEndpoint(), "event_space=FTB.AGENT");
  EventCollector child(cluster.agent(2).ipcEndpoint(), "event_space=FTB.AGENT");
  const auto silent = [](const Event& e, const char* name) {
    return e.event_name == name && e.payload.find("no heartbeat within the link timeout") != std::string::npos;
  };

  Resume resume{cluster.agent(1).pid()};
  const auto stopped_at = std::chrono::system_clock::now();
  ::kill(cluster.agent(1).pid(), SIGSTOP);
  const auto child_lost = parent.waitFor([&](const Event& e) { return silent(e, "FTB_AGENT_CHILD_LOST"); }, 20s);
  BOOST_TEST(child_lost.has_value(), "agent0 did not find the stopped agent1 silent");
  const auto parent_lost = child.waitFor([&](const Event& e) { return silent(e, "FTB_AGENT_PARENT_LOST"); }, 20s);
  BOOST_TEST(parent_lost.has_value(), "agent2 did not find the stopped agent1 silent");
  const auto reattached = child.waitFor(
      [&](const Event& e) {
        return e.event_name == "FTB_AGENT_REATTACHED" && e.payload.find(stopped_address) == std::string::npos;
      },
      20s);
  BOOST_TEST(reattached.has_value(), "agent2 did not re-attach while agent1 was stopped");
  // Figures only (same machine's clock); nothing asserts on time.
  const auto ms = [&](const std::optional<Event>& e) {
    if (!e) return -1.0;
    const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(e->time_sec) +
                                                         std::chrono::nanoseconds(e->time_nsec));
    return std::chrono::duration<double, std::milli>(t - stopped_at).count();
  };
  std::printf("SIGSTOP -> CHILD_LOST %.1f ms, PARENT_LOST %.1f ms, REATTACHED %.1f ms\n", ms(child_lost),
              ms(parent_lost), ms(reattached));
  BOOST_TEST(cluster.infos()[2]->path_size() == 2, "agent2 is not directly below agent0");
  cluster.kill(1);
}

}  // namespace ftb::testing
