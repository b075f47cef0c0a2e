// What the simulation tests share: the seed a run replays, the tree's
// configuration, the invariant checks that print the seed, and small finders.
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/sim/sim_world.h"

namespace ftb::sim {

using namespace std::chrono_literals;

// FTB_SIM_SEED=<seed> replays a run; else `fallback` (a random seed).
inline uint64_t seedFromEnvironment(uint64_t fallback) {
  const char* s = std::getenv("FTB_SIM_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 10) : fallback;
}

inline tree::TreeConfig simConfig(std::vector<std::string> seeds) {
  tree::TreeConfig c;
  c.fan_out = 8;
  c.seeds = std::move(seeds);
  c.retention_events = 20000;
  c.retention_age = 60s;
  return c;
}

// Fails with the seed in the message, so the run can be replayed.
inline void expectClean(const std::string& violation, uint64_t seed, const char* when) {
  BOOST_TEST(violation.empty(), when << ": " << violation << " (seed " << seed
                                     << "; replay with FTB_SIM_SEED=" << seed << ")");
}

// Nodes that have children: killing one orphans a subtree.
inline std::vector<std::size_t> interiorNodes(World& world) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < world.size(); ++i) {
    auto& n = world.node(i);
    if (n.alive && n.tree && !n.tree->children().empty()) out.push_back(i);
  }
  return out;
}

inline std::size_t rootNode(World& world) {
  for (std::size_t i = 0; i < world.size(); ++i) {
    auto& n = world.node(i);
    if (n.alive && n.tree && n.tree->state() == tree::TreeNode::State::kRoot) return i;
  }
  return world.size();
}

// 30 agents started 1 ms apart, one subscriber, run until `settled`: one
// tree. Returns an interior agent below the root.
inline std::size_t treeOf30WithInteriorVictim(World& world, Nanos settled, uint64_t seed) {
  for (std::size_t i = 0; i < 30; ++i) world.addNode(i, Nanos(i * 1'000'000));
  world.subscribe(29, "");
  world.runUntil(settled);
  expectClean(world.checkSingleTree(), seed, "before");
  std::size_t victim = world.size();
  for (std::size_t i : interiorNodes(world)) {
    if (world.node(i).tree->parent()) victim = i;  // interior, not the root
  }
  BOOST_TEST_REQUIRE(victim < world.size(), "no interior agent below the root (seed " << seed << ")");
  return victim;
}

}  // namespace ftb::sim
