#define BOOST_TEST_MODULE launcher_node_table
#include <boost/test/unit_test.hpp>

#include "components/launcher_bridge/node_table.h"

using namespace ftb::launcher;

namespace {
NodeTable threeAndASpare() {
  auto t = NodeTable::create({"n1", "n2", "n3"}, {"n4"}, 2);
  BOOST_TEST_REQUIRE(t.ok(), t.status().toString());
  return *t;
}
}  // namespace

BOOST_AUTO_TEST_CASE(deals_ranks_in_blocks_and_keeps_spares_empty) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.rankCount() == 6);
  BOOST_TEST(t.readyCount() == 3);
  BOOST_TEST(t.hostList() == "n1:2,n2:2,n3:2");
  BOOST_TEST(t.rankHosts() == "0=n1,1=n1,2=n2,3=n2,4=n3,5=n3");
  BOOST_TEST((t.find("n4")->state == NodeState::kSpare));
  BOOST_TEST(t.find("n4")->ranks.empty());
  BOOST_TEST(t.find("n5") == nullptr);
}

BOOST_AUTO_TEST_CASE(node_encoders_add_one_process_first_in_every_block) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.hostList(true) == "n1:3,n2:3,n3:3");
  BOOST_TEST(t.nodeMap(true) == "n1,n1,n1,n2,n2,n2,n3,n3,n3");
  BOOST_TEST(t.rankHosts(true) == "0=n1,1=n1,2=n1,3=n2,4=n2,5=n2,6=n3,7=n3,8=n3");
  BOOST_TEST(t.rankCount() == 6);  // the encoders are no ranks
  BOOST_TEST(t.moveRanks("n2", "n4").ok());
  BOOST_TEST(t.hostList(true) == "n1:3,n4:3,n3:3");  // the spare gets its encoder too
}

BOOST_AUTO_TEST_CASE(refuses_bad_tables) {
  BOOST_TEST(!NodeTable::create({}, {"n4"}, 2).ok());
  BOOST_TEST(!NodeTable::create({"n1", "n1"}, {}, 2).ok());
  BOOST_TEST(!NodeTable::create({"n1"}, {"n1"}, 2).ok());
  BOOST_TEST(!NodeTable::create({"n1"}, {}, 0).ok());
}

BOOST_AUTO_TEST_CASE(migration_to_a_spare_keeps_rank_order) {
  NodeTable t = threeAndASpare();
  auto spare = t.armSpare();
  BOOST_TEST_REQUIRE(spare.has_value());
  BOOST_TEST(*spare == "n4");
  BOOST_TEST((t.find("n4")->state == NodeState::kArm));
  BOOST_TEST(!t.armSpare().has_value());
  BOOST_TEST_REQUIRE(t.moveRanks("n2", "n4").ok());
  BOOST_TEST(t.hostList() == "n1:2,n4:2,n3:2");
  BOOST_TEST(t.rankHosts() == "0=n1,1=n1,2=n4,3=n4,4=n3,5=n3");
  BOOST_TEST(t.nodeMap() == "n1,n1,n4,n4,n3,n3");
  BOOST_TEST((t.find("n2")->state == NodeState::kInactive));
  BOOST_TEST((t.find("n4")->state == NodeState::kReady));
  // Healthy again: n2 becomes the spare.
  BOOST_TEST_REQUIRE(t.markSpare("n2").ok());
  BOOST_TEST((t.find("n2")->state == NodeState::kSpare));
  BOOST_TEST(!t.markSpare("n1").ok());  // READY nodes are not spares
}

BOOST_AUTO_TEST_CASE(without_a_spare_a_dead_block_merges_into_a_neighbour) {
  auto t = NodeTable::create({"n1", "n2", "n3"}, {}, 2);
  BOOST_TEST_REQUIRE(t.ok());
  auto receiver = t->mergeIntoNeighbour("n1");
  BOOST_TEST_REQUIRE(receiver.ok(), receiver.status().toString());
  BOOST_TEST(*receiver == "n2");
  BOOST_TEST(t->hostList() == "n2:4,n3:2");
  receiver = t->mergeIntoNeighbour("n3");
  BOOST_TEST_REQUIRE(receiver.ok());
  BOOST_TEST(t->hostList() == "n2:6");
  BOOST_TEST(!t->mergeIntoNeighbour("n2").ok());  // nobody left to take them
}

BOOST_AUTO_TEST_CASE(a_described_table_restores_the_same_after_a_migration) {
  NodeTable t = threeAndASpare();
  BOOST_TEST_REQUIRE(t.armSpare().has_value());
  BOOST_TEST_REQUIRE(t.moveRanks("n2", "n4").ok());
  auto r = NodeTable::restore(t.describe());
  BOOST_TEST_REQUIRE(r.ok(), r.status().toString());
  BOOST_TEST(r->describe() == t.describe(), boost::test_tools::per_element());
  BOOST_TEST(r->hostList() == "n1:2,n4:2,n3:2");
  BOOST_TEST(r->rankCount() == 6);
  BOOST_TEST((r->find("n2")->state == NodeState::kInactive));
}

BOOST_AUTO_TEST_CASE(a_bad_journal_table_is_refused) {
  for (const std::vector<std::string>& lines :
       {std::vector<std::string>{"n1 MIGRATION_READY"}, {"n1 READY 0,1"}, {"n1 MIGRATION_READY 0,x"},
        {"n1 MIGRATION_READY 0,1", "n2 MIGRATION_READY 1,2"}, {"n1 MIGRATION_READY 1,2"}, {}}) {
    BOOST_TEST(!NodeTable::restore(lines).ok());
  }
}

BOOST_AUTO_TEST_CASE(a_granted_node_joins_as_a_spare_and_is_used_by_the_next_migration) {
  NodeTable t = threeAndASpare();
  BOOST_TEST_REQUIRE(t.armSpare().has_value());
  BOOST_TEST_REQUIRE(t.moveRanks("n2", "n4").ok());
  BOOST_TEST(t.spareCount() == 0);
  BOOST_TEST(!t.addSpare("n1").ok());  // in the table already
  BOOST_TEST_REQUIRE(t.addSpare("n5").ok());
  BOOST_TEST(t.spareCount() == 1);
  auto spare = t.armSpare();
  BOOST_TEST_REQUIRE(spare.has_value());
  BOOST_TEST(*spare == "n5");
  BOOST_TEST_REQUIRE(t.moveRanks("n3", "n5").ok());
  BOOST_TEST(t.hostList() == "n1:2,n4:2,n5:2");
}

BOOST_AUTO_TEST_CASE(under_run_through_the_spares_join_the_allocation_after_the_ranks_nodes) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.hostListWithSpares() == "n1:2,n2:2,n3:2,n4:2");
  BOOST_TEST(t.spareNames() == std::vector<std::string>{"n4"});
  BOOST_TEST(t.moveRanks("n2", "n4").ok());
  BOOST_TEST(t.hostListWithSpares() == "n1:2,n4:2,n3:2");  // none left
}

BOOST_AUTO_TEST_CASE(a_node_whose_every_rank_was_replaced_on_a_spare_hands_its_block_over) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.recordReplacements({2, 3}, {"n4", "n4"}).empty());
  BOOST_TEST(t.hostList() == "n1:2,n4:2,n3:2");
  BOOST_TEST((t.find("n2")->state == NodeState::kInactive));
  BOOST_TEST((t.find("n4")->state == NodeState::kReady));
}

BOOST_AUTO_TEST_CASE(a_replacement_elsewhere_is_recorded_where_it_runs) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.recordReplacements({2, 5}, {"n2", "n3"}).empty());  // in place: nothing changes
  BOOST_TEST(t.recordReplacements({3}, {"n4"}).empty());           // n2's rank 2 runs on
  BOOST_TEST(t.nodeMap() == "n1,n1,n2,n4,n3,n3");
  BOOST_TEST(t.rankHosts() == "0=n1,1=n1,2=n2,3=n4,4=n3,5=n3");
  // Still blocks in rank order: the slot order places every rank.
  BOOST_TEST(t.contiguous());
  BOOST_TEST(t.hostList() == "n1:2,n2:1,n4:1,n3:2");
  BOOST_TEST((t.find("n2")->state == NodeState::kReady));
  BOOST_TEST((t.find("n4")->state == NodeState::kReady));
  BOOST_TEST(t.spareNames().empty());
  // Rank 2 follows later (its node emptied): n2's block is all on n4.
  BOOST_TEST(t.recordReplacements({2}, {"n4"}).empty());
  BOOST_TEST(t.hostList() == "n1:2,n4:2,n3:2");
  BOOST_TEST((t.find("n2")->state == NodeState::kInactive));
}

BOOST_AUTO_TEST_CASE(a_block_split_in_its_middle_is_placed_by_a_rankfile_and_journaled) {
  auto t = NodeTable::create({"n1", "n2"}, {"s1"}, 3);
  BOOST_TEST_REQUIRE(t.ok());
  BOOST_TEST(t->recordReplacements({4}, {"s1"}).empty());
  BOOST_TEST(!t->contiguous());  // n2 runs 3 and 5
  BOOST_TEST(t->nodeMap() == "n1,n1,n1,n2,s1,n2");
  BOOST_TEST(t->rankfile() ==
             "rank 0=n1 slot=0\nrank 1=n1 slot=0\nrank 2=n1 slot=0\nrank 3=n2 slot=0\n"
             "rank 4=s1 slot=0\nrank 5=n2 slot=0\n");
  BOOST_TEST(t->hostList() == "n1:3,n2:2,s1:1");  // the allocation
  auto r = NodeTable::restore(t->describe());
  BOOST_TEST_REQUIRE(r.ok(), r.status().toString());
  BOOST_TEST(r->nodeMap() == t->nodeMap());
  BOOST_TEST(!r->contiguous());
}

BOOST_AUTO_TEST_CASE(replacements_to_two_places_and_onto_a_ready_node_are_recorded_too) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.recordReplacements({2, 3}, {"n4", "n1"}).empty());
  BOOST_TEST(t.nodeMap() == "n1,n1,n4,n1,n3,n3");
  BOOST_TEST(t.find("n1")->ranks == (std::vector<int>{0, 1, 3}));
  BOOST_TEST((t.find("n2")->state == NodeState::kInactive));
  BOOST_TEST(t.rankfile(true) ==
             "rank 0=n1 slot=0\nrank 1=n1 slot=0\nrank 2=n1 slot=0\nrank 3=n4 slot=0\nrank 4=n4 slot=0\n"
             "rank 5=n1 slot=0\nrank 6=n3 slot=0\nrank 7=n3 slot=0\nrank 8=n3 slot=0\n");
}

BOOST_AUTO_TEST_CASE(a_replacement_on_an_unknown_node_stays_recorded_on_its_own) {
  NodeTable t = threeAndASpare();
  BOOST_TEST(t.recordReplacements({2, 7}, {"elsewhere", "n4"}) == std::vector<int>{2});  // 7: no such rank
  BOOST_TEST(t.hostList() == "n1:2,n2:2,n3:2");
  BOOST_TEST((t.find("n4")->state == NodeState::kSpare));
}
