// Deterministic simulation of the agent tree: thousands of TreeNodes (the
// agent's own protocol code) on virtual time with seeded faults. A failing run
// prints its seed; FTB_SIM_SEED=<seed> replays it exactly, FTB_SIM_AGENTS=<n>
// changes the size of the big run (tests/sim/sim_trace.h: tracing a seed).
#define BOOST_TEST_MODULE tree_sim
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>

#include "tests/sim/sim_test_support.h"
#include "tests/sim/sim_world.h"

namespace ftb::sim {
namespace {

using namespace std::chrono_literals;

std::size_t agentsFromEnvironment(std::size_t fallback) {
  const char* s = std::getenv("FTB_SIM_AGENTS");
  return s != nullptr ? std::strtoull(s, nullptr, 10) : fallback;
}

void printRepairs(const World& world, const char* label) {
  auto times = world.repairTimes();
  if (times.empty()) {
    std::cout << label << ": no repairs\n";
    return;
  }
  auto ms = [](Nanos n) { return std::chrono::duration<double, std::milli>(n).count(); };
  std::cout << label << ": " << times.size() << " repairs, median " << ms(times[times.size() / 2])
            << " ms, p99 " << ms(times[times.size() * 99 / 100]) << " ms, max "
            << ms(times.back()) << " ms\n";
}

// FTB_SIM_DEBUG: the agents that are roots or still joining, with their size.
void printUnattached(World& world) {
  if (!debugRequested()) return;
  for (std::size_t i = 0; i < world.size(); ++i) {
    auto& n = world.node(i);
    if (!n.alive || n.tree->state() == tree::TreeNode::State::kAttached) continue;
    std::cout << world.now().count() / 1e9 << " " << n.address << " state "
              << static_cast<int>(n.tree->state()) << " children " << n.tree->children().size()
              << " subtree " << n.tree->subtreeSize() << "\n";
  }
}

BOOST_AUTO_TEST_CASE(ten_thousand_agents_survive_kills_of_interior_agents_and_the_root) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  const std::size_t agents = agentsFromEnvironment(10000);
  std::cout << "simulating " << agents << " agents, seed " << seed << "\n";
  World world(seed, simConfig({"n0", "n1", "n2"}));
  auto& random = world.random();
  for (std::size_t i = 0; i < agents; ++i) {
    world.addNode(i, i < 3 ? Nanos(i) : Nanos(std::uniform_int_distribution<int64_t>(1'000'000, 3'000'000'000)(random)));
  }
  std::uniform_int_distribution<std::size_t> any(0, agents - 1);
  for (int i = 0; i < 40; ++i) world.subscribe(any(random), "");
  for (int i = 0; i < 40; ++i) world.subscribe(any(random), "event_space=FTB.SIM.A, severity>=error");
  std::vector<std::size_t> publishers;
  const char* spaces[] = {"FTB.SIM.A", "FTB.SIM.B", "FTB.SIM.C"};
  // Distinct nodes: a publisher has one namespace (an FTB client connects
  // with one event space), which the routing relies on.
  while (publishers.size() < 12) {
    const std::size_t p = any(random);
    if (std::find(publishers.begin(), publishers.end(), p) == publishers.end()) publishers.push_back(p);
  }

  world.runUntil(6s);
  printUnattached(world);
  expectClean(world.checkSingleTree(), seed, "after the joins");

  // 15 s of publishing; faults during the first 10.
  Nanos next_fault = 7s;
  int faults = 0;
  std::vector<std::pair<Nanos, std::size_t>> restarts;
  for (Nanos t = 6s; t < 21s; t += 50ms) {
    for (std::size_t i = 0; i < publishers.size(); ++i) world.publish(publishers[i], spaces[i % 3]);
    if (t >= next_fault && t < 17s) {
      std::size_t victim;
      if (++faults % 3 == 0) {
        victim = rootNode(world);
      } else {
        auto interior = interiorNodes(world);
        victim = interior[std::uniform_int_distribution<std::size_t>(0, interior.size() - 1)(random)];
      }
      if (victim < world.size()) {
        world.kill(victim);
        if (random() % 2 == 0) restarts.push_back({t + 1s + Nanos(random() % 2'000'000'000), victim});
      }
      next_fault = t + 700ms;
    }
    for (auto it = restarts.begin(); it != restarts.end();) {
      if (it->first <= t) {
        world.restart(it->second);
        it = restarts.erase(it);
      } else {
        ++it;
      }
    }
    world.runUntil(t + 50ms);
  }
  world.runUntil(45s);
  std::cout << faults << " agents killed, " << world.messagesDelivered() << " messages\n";
  printRepairs(world, "repair times");
  printUnattached(world);
  expectClean(world.checkSingleTree(), seed, "after the faults");
  expectClean(world.checkDelivery(), seed, "delivery");
}

BOOST_AUTO_TEST_CASE(a_partition_keeps_both_sides_working_and_heals) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  constexpr std::size_t kAgents = 300;
  // One seed per side, as a site would list one per rack or switch.
  World world(seed, simConfig({"n0", "n1", "n150", "n151"}));
  for (std::size_t i = 0; i < kAgents; ++i) world.addNode(i, Nanos(i * 1'000'000));
  auto& random = world.random();
  std::uniform_int_distribution<std::size_t> side_a(0, kAgents / 2 - 1), side_b(kAgents / 2, kAgents - 1);
  std::vector<std::size_t> subscribers, publishers;
  for (int i = 0; i < 5; ++i) subscribers.push_back(side_a(random)), subscribers.push_back(side_b(random));
  for (int i = 0; i < 3; ++i) publishers.push_back(side_a(random)), publishers.push_back(side_b(random));
  for (auto s : subscribers) world.subscribe(s, "");
  world.runUntil(3s);
  expectClean(world.checkSingleTree(), seed, "before the partition");

  for (std::size_t i = kAgents / 2; i < kAgents; ++i) world.setIsland(i, 1);
  Nanos t = 3s;
  for (; t < 8s; t += 50ms) {
    for (auto p : publishers) world.publish(p, "FTB.SIM.P");
    world.runUntil(t + 50ms);
  }
  printUnattached(world);
  // Each side delivers its own events during the partition.
  for (auto s : subscribers) {
    for (auto p : publishers) {
      if ((s < kAgents / 2) != (p < kAgents / 2)) continue;
      auto& got = world.node(s).delivered[world.node(p).publisher];
      BOOST_TEST(got.size() == world.node(p).published,
                 "n" << s << " got " << got.size() << " of n" << p << "'s "
                     << world.node(p).published << " events within its side (seed " << seed << ")");
    }
  }
  for (std::size_t i = kAgents / 2; i < kAgents; ++i) world.setIsland(i, 0);
  for (; t < 10s; t += 50ms) {
    for (auto p : publishers) world.publish(p, "FTB.SIM.P");
    world.runUntil(t + 50ms);
  }
  world.runUntil(25s);
  expectClean(world.checkSingleTree(), seed, "after healing");
  expectClean(world.checkDelivery(), seed, "delivery across the healed partition");
}

BOOST_AUTO_TEST_CASE(the_oldest_child_of_a_dead_root_takes_over_within_a_second) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  World world(seed, simConfig({"n0"}));
  for (std::size_t i = 0; i < 30; ++i) world.addNode(i, Nanos(i * 1'000'000));
  world.subscribe(29, "");
  world.runUntil(2s);
  expectClean(world.checkSingleTree(), seed, "before");
  BOOST_TEST_REQUIRE(rootNode(world) == 0u);
  world.kill(0);
  for (Nanos t = 2s; t < 4s; t += 10ms) {
    world.publish(5, "FTB.SIM.X");
    world.runUntil(t + 10ms);
  }
  world.runUntil(6s);
  expectClean(world.checkSingleTree(), seed, "after the root died");
  expectClean(world.checkDelivery(), seed, "delivery");
  auto times = world.repairTimes();
  BOOST_TEST_REQUIRE(!times.empty());
  BOOST_TEST(times.back() < 1s, "slowest repair took " << times.back().count() << " ns");
  printRepairs(world, "root death");
}

BOOST_AUTO_TEST_CASE(a_process_death_is_repaired_well_within_a_link_timeout) {
  // Its closed connections tell its neighbours at once; silence would take a
  // whole link timeout before any repair began.
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  const auto config = simConfig({"n0"});
  World world(seed, config);
  const std::size_t victim = treeOf30WithInteriorVictim(world, 2s, seed);
  const std::size_t orphans = world.node(victim).tree->children().size();
  const std::size_t repairs = world.repairTimes().size();
  world.killClosingConnections(victim);
  world.runUntil(world.now() + config.link_timeout / 2);
  expectClean(world.checkSingleTree(), seed, "half a link timeout after the kill");
  BOOST_TEST(world.repairTimes().size() - repairs == orphans,
             "orphans repaired " << world.repairTimes().size() - repairs << " of " << orphans
                                 << " (seed " << seed << ")");
}

BOOST_AUTO_TEST_CASE(with_the_agent_defaults_a_silent_death_is_repaired_within_200ms) {
  // ftb-agent's defaults (--tree-heartbeat-ms 50, --tree-timeout-ms 150) in a
  // quiet tree: the adaptive timeout stays at its floor and a silent death
  // (no closed connection) is found and repaired within 200 ms.
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  auto config = simConfig({"n0"});
  config.heartbeat_interval = 50ms;
  config.link_timeout = 150ms;
  World world(seed, config);
  const std::size_t victim = treeOf30WithInteriorVictim(world, 3s, seed);
  for (const auto& link : world.node(victim).tree->links(world.now())) {
    BOOST_TEST(link.timeout == config.link_timeout, "a quiet link's timeout grew to "
                                                        << link.timeout.count() << " ns (seed " << seed << ")");
  }
  const std::size_t orphans = world.node(victim).tree->children().size();
  const std::size_t repairs = world.repairTimes().size();
  world.kill(victim);
  world.runUntil(world.now() + 200ms);
  BOOST_TEST(world.repairTimes().size() - repairs == orphans,
             "orphans repaired within 200 ms: " << world.repairTimes().size() - repairs << " of " << orphans
                                                << " (seed " << seed << ")");
  world.runUntil(world.now() + 2s);
  expectClean(world.checkSingleTree(), seed, "after the silent death");
}

BOOST_AUTO_TEST_CASE(a_starved_agent_keeps_its_links_until_four_link_timeouts) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  const auto config = simConfig({"n0"});
  World world(seed, config);
  for (std::size_t i = 0; i < 20; ++i) world.addNode(i, Nanos(i * 1'000'000));
  world.subscribe(19, "");
  world.runUntil(2s);
  expectClean(world.checkSingleTree(), seed, "before");
  std::size_t starved = world.size();
  for (std::size_t i : interiorNodes(world)) {
    if (world.node(i).tree->parent()) starved = i;  // interior, not the root
  }
  BOOST_TEST_REQUIRE(starved < world.size(), "no interior agent below the root (seed " << seed << ")");
  const auto parent = world.node(starved).tree->parent()->address;
  const auto children = world.node(starved).tree->children().size();
  const std::size_t repairs = world.repairTimes().size();
  // Unread input for three link timeouts: its parent's and children's
  // heartbeats wait in its queue, while its own timers keep running.
  const Nanos stall_end = world.now() + 3 * config.link_timeout;
  world.stall(starved, stall_end);
  for (Nanos t = world.now(); t < stall_end + 1s; t += 10ms) {
    world.publish(5, "FTB.SIM.X");
    world.runUntil(t + 10ms);
  }
  BOOST_TEST(world.repairTimes().size() == repairs, "a backlog of three link timeouts caused "
                                                        << world.repairTimes().size() - repairs << " repairs (seed "
                                                        << seed << ")");
  BOOST_TEST(world.node(starved).tree->parent()->address == parent);
  BOOST_TEST(world.node(starved).tree->children().size() == children);
  expectClean(world.checkSingleTree(), seed, "after the backlog");
  expectClean(world.checkDelivery(), seed, "delivery");
  // A backlog longer than the allowance (which the first backlog's silence
  // raised toward its ceiling): the starved agent gives up on its parent (as
  // it would on a dead one) and the tree repairs.
  const Nanos beyond = tree::TreeNode::maxLinkTimeout(config) + 2 * config.link_timeout;
  world.stall(starved, world.now() + beyond);
  world.runUntil(world.now() + beyond + 2s);
  BOOST_TEST(world.repairTimes().size() > repairs, "the starved agent never judged its parent silent");
  expectClean(world.checkSingleTree(), seed, "after the long backlog");
}

}  // namespace
}  // namespace ftb::sim
