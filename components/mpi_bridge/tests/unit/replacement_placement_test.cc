// placeReplacements: in place unless the lost rank's node is suspect (replacement_placement.h).
#define BOOST_TEST_MODULE replacement_placement_test
#include "components/mpi_bridge/replacement_placement.h"

#include <boost/test/unit_test.hpp>

using ftb::mpi_bridge::emptiedNodes;
using ftb::mpi_bridge::nodesAreMachines;
using ftb::mpi_bridge::NodeStates;
using ftb::mpi_bridge::placeReplacements;
using ftb::mpi_bridge::spawnApps;
using Nodes = std::vector<std::string>;
using States = std::map<std::string, std::string>;

BOOST_AUTO_TEST_CASE(a_replacement_stays_in_place_even_with_a_spare_free) {
  BOOST_CHECK((placeReplacements({3}, {"n0", "n1", "n2", "n3"}, {"s0"}, {}) == Nodes{"n0", "n1", "n2", "n3"}));
  States healthy = {{"n3", "MIGRATION_READY"}, {"s1", "MIGRATION_SPARE"}};
  BOOST_CHECK((placeReplacements({3}, {"n0", "n1", "n2", "n3"}, {"s0"}, healthy) == Nodes{"n0", "n1", "n2", "n3"}));
}

BOOST_AUTO_TEST_CASE(a_replacement_of_a_suspect_node_goes_to_the_first_free_spare) {
  States suspect = {{"n3", "MIGRATION_INACTIVE"}};
  BOOST_CHECK((placeReplacements({3}, {"n0", "n1", "n2", "n3"}, {"s0", "s1"}, suspect) ==
               Nodes{"n0", "n1", "n2", "s0"}));
  // Without a spare it stays where it was.
  BOOST_CHECK((placeReplacements({3}, {"n0", "n1", "n2", "n3"}, {}, suspect) == Nodes{"n0", "n1", "n2", "n3"}));
}

BOOST_AUTO_TEST_CASE(a_spare_in_use_suspect_or_taken_is_not_free) {
  States states = {{"n1", "MIGRATION_INACTIVE"}, {"n3", "MIGRATION_INACTIVE"}, {"s0", "MIGRATION_INACTIVE"}};
  // s0 is suspect itself, n0 runs ranks; s1 takes rank 1, rank 3 stays on its node (none left).
  BOOST_CHECK((placeReplacements({1, 3}, {"n0", "n1", "n2", "n3"}, {"s0", "n0", "s1"}, states) ==
               Nodes{"n0", "s1", "n2", "n3"}));
}

BOOST_AUTO_TEST_CASE(only_lost_ranks_move) {
  States states = {{"n1", "MIGRATION_INACTIVE"}};
  // Ranks 1 and 3 share n1; only rank 3 was lost: rank 1 lives on where it is.
  BOOST_CHECK((placeReplacements({3}, {"n0", "n1", "n2", "n1"}, {"s0"}, states) == Nodes{"n0", "n1", "n2", "s0"}));
}

BOOST_AUTO_TEST_CASE(node_states_keep_the_newest_state_per_node) {
  NodeStates table;
  table.update("n3", "MIGRATION_READY");
  table.update("n3", "MIGRATION_INACTIVE");
  table.update("s0", "MIGRATION_SPARE");
  BOOST_CHECK((table.snapshot() == States{{"n3", "MIGRATION_INACTIVE"}, {"s0", "MIGRATION_SPARE"}}));
}

BOOST_AUTO_TEST_CASE(replacements_are_spawned_as_one_app_per_host) {
  // A node's ranks to one spare: one app of two.
  auto apps = spawnApps({2, 3}, {"spare", "spare"});
  BOOST_REQUIRE_EQUAL(apps.size(), 1u);
  BOOST_CHECK_EQUAL(apps[0].host, "spare");
  BOOST_CHECK((apps[0].ranks == std::vector<int>{2, 3}));
  // Interleaved hosts: grouped, hosts in order of first appearance.
  apps = spawnApps({1, 2, 5}, {"a", "b", "a"});
  BOOST_REQUIRE_EQUAL(apps.size(), 2u);
  BOOST_CHECK_EQUAL(apps[0].host, "a");
  BOOST_CHECK((apps[0].ranks == std::vector<int>{1, 5}));
  BOOST_CHECK_EQUAL(apps[1].host, "b");
  BOOST_CHECK((apps[1].ranks == std::vector<int>{2}));
  BOOST_CHECK(spawnApps({}, {}).empty());
}

BOOST_AUTO_TEST_CASE(a_nodes_replacements_go_to_one_spare_together) {
  States suspect = {{"n1", "MIGRATION_INACTIVE"}};
  BOOST_CHECK((placeReplacements({2, 3}, {"n0", "n0", "n1", "n1"}, {"s0", "s1"}, suspect) ==
               Nodes{"n0", "n0", "s0", "s0"}));
}

BOOST_AUTO_TEST_CASE(a_node_whose_machine_lost_every_rank_needs_a_spare) {
  // n1's machine h1 runs no rank of the job any more: its ranks go to the spare, unsuspected.
  Nodes nodes = {"n0", "n0", "n1", "n1"}, hosts = {"h0", "h0", "h1", "h1"};
  auto emptied = emptiedNodes({2, 3}, nodes, hosts);
  BOOST_CHECK((emptied == std::set<std::string>{"n1"}));
  BOOST_CHECK((placeReplacements({2, 3}, nodes, {"s0"}, {}, emptied) == Nodes{"n0", "n0", "s0", "s0"}));
  // One of h1's ranks lives: in place.
  BOOST_CHECK(emptiedNodes({3}, nodes, hosts).empty());
  // Names of nodes on one machine (FTBCKPT_NODE_MAP): the machine lives on, nothing emptied.
  BOOST_CHECK(emptiedNodes({3}, {"n0", "n1", "n2", "n3"}, {"vm", "vm", "vm", "vm"}).empty());
  // No free spare: in place (where Open MPI 5.0.7 will fail to start it).
  BOOST_CHECK((placeReplacements({2, 3}, nodes, {}, {}, emptied) == nodes));
}

BOOST_AUTO_TEST_CASE(a_spare_is_a_machine_only_where_node_names_are_machine_names) {
  // ftb-run on a cluster: FTBCKPT_NODE_MAP names the machines themselves.
  BOOST_CHECK(nodesAreMachines({"n1", "n1", "n2", "n2"}, {"n1", "n1", "n2", "n2"}));
  // Several "nodes" on one machine: a spare is a name only.
  BOOST_CHECK(!nodesAreMachines({"n0", "n1", "n2", "n3"}, {"vm", "vm", "vm", "vm"}));
  BOOST_CHECK(!nodesAreMachines({"n1", "n1", "n2", "n2"}, {"n1", "n1", "n2", "vm"}));
}
