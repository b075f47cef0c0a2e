// Who announces a lost agent (TopologyChange::PeerLoss, issue 33 item 4): of
// all the agents linked to it, exactly one says so with announce set, and it
// carries what the lost agent's heartbeats said lived there. Deterministic:
// virtual time, seeded; a failure prints the seed to replay it with.
#define BOOST_TEST_MODULE node_loss_sim
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <random>
#include <vector>

#include "tests/sim/sim_test_support.h"
#include "tests/sim/sim_world.h"

namespace ftb::sim {
namespace {

// Agent i says it runs ranks 2i and 2i+1 of job "J" among its three clients.
void giveEveryAgentRanks(World& world) {
  for (std::size_t i = 0; i < world.size(); ++i) {
    world.node(i).residents = tree::Residents{
        .clients = 3, .ranks_by_job = {{"J", {static_cast<int32_t>(2 * i), static_cast<int32_t>(2 * i + 1)}}}};
  }
}

struct Reports {
  std::vector<std::size_t> announcers;  // agents whose change about the lost one has announce set
  std::size_t links = 0;                // changes about it without
  std::vector<tree::TopologyChange> announced;
};

Reports reportsOf(World& world, const tree::NodeRef& lost) {
  Reports r;
  for (std::size_t i = 0; i < world.size(); ++i) {
    for (const auto& change : world.node(i).losses) {
      if (!change.subject.sameNode(lost)) continue;
      if (change.loss->announce) {
        r.announcers.push_back(i);
        r.announced.push_back(change);
      } else {
        ++r.links;
      }
    }
  }
  return r;
}

// 30 agents, one tree, every agent's ranks heard by its neighbours.
std::size_t settledTreeWithRanks(World& world, uint64_t seed) {
  for (std::size_t i = 0; i < 30; ++i) world.addNode(i, Nanos(i * 1'000'000));
  giveEveryAgentRanks(world);
  world.subscribe(29, "");
  world.runUntil(2s);
  expectClean(world.checkSingleTree(), seed, "before");
  return rootNode(world);
}

// An agent with children below the root: its loss orphans a subtree.
std::size_t interiorBelowRoot(World& world, uint64_t seed) {
  std::size_t victim = world.size();
  for (std::size_t i : interiorNodes(world)) {
    if (world.node(i).tree->parent()) victim = i;
  }
  BOOST_TEST_REQUIRE(victim < world.size(), "no interior agent below the root (seed " << seed << ")");
  return victim;
}

BOOST_AUTO_TEST_CASE(a_silent_agent_is_announced_once_by_its_parent_with_its_ranks) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  World world(seed, simConfig({"n0"}));
  settledTreeWithRanks(world, seed);
  const std::size_t victim = interiorBelowRoot(world, seed);
  const tree::NodeRef lost = world.node(victim).tree->self();
  const tree::NodeRef parent = *world.node(victim).tree->parent();
  const std::size_t children = world.node(victim).tree->children().size();
  world.kill(victim);
  world.runUntil(world.now() + 3s);
  expectClean(world.checkSingleTree(), seed, "after the kill");

  const Reports r = reportsOf(world, lost);
  BOOST_TEST_REQUIRE(r.announcers.size() == 1u, r.announcers.size() << " announcers (seed " << seed << ")");
  BOOST_TEST(world.node(r.announcers[0]).address == parent.address);
  BOOST_TEST(r.links == children, "its children reported " << r.links << " of " << children << " links");
  const auto& loss = *r.announced[0].loss;
  BOOST_TEST(loss.by == "silence");
  BOOST_TEST(loss.silent_for > Nanos(0));
  BOOST_TEST((loss.residents == world.node(victim).residents));
}

BOOST_AUTO_TEST_CASE(a_dead_root_is_announced_once_by_the_child_that_takes_over) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  World world(seed, simConfig({"n0"}));
  const std::size_t root = settledTreeWithRanks(world, seed);
  BOOST_TEST_REQUIRE(root < world.size());
  const tree::NodeRef lost = world.node(root).tree->self();
  world.killClosingConnections(root);
  world.runUntil(world.now() + 3s);
  expectClean(world.checkSingleTree(), seed, "after the root died");

  const Reports r = reportsOf(world, lost);
  BOOST_TEST_REQUIRE(r.announcers.size() == 1u, r.announcers.size() << " announcers (seed " << seed << ")");
  BOOST_TEST(r.announcers[0] == rootNode(world), "announced by n" << r.announcers[0] << ", the new root is n"
                                                                   << rootNode(world));
  BOOST_TEST(r.announced[0].loss->by == "connection-closed");
  BOOST_TEST((r.announced[0].loss->residents == world.node(root).residents));
}

BOOST_AUTO_TEST_CASE(an_agent_that_stops_gracefully_is_not_announced) {
  const uint64_t seed = seedFromEnvironment(std::random_device{}());
  World world(seed, simConfig({"n0"}));
  settledTreeWithRanks(world, seed);
  const std::size_t victim = interiorBelowRoot(world, seed);
  const tree::NodeRef stopped = world.node(victim).tree->self();
  world.stopGracefully(victim);
  world.runUntil(world.now() + 3s);
  expectClean(world.checkSingleTree(), seed, "after the stop");
  const Reports r = reportsOf(world, stopped);
  BOOST_TEST(r.announcers.empty());
  BOOST_TEST(r.links == 0u);
}

}  // namespace
}  // namespace ftb::sim
