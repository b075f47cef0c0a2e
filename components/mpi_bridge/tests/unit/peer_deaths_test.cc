// PeerDeaths: which announced deaths start a repair (peer_deaths.h).
#define BOOST_TEST_MODULE peer_deaths_test
#include "components/mpi_bridge/peer_deaths.h"

#include <boost/test/unit_test.hpp>

#include <vector>

using ftb::mpi_bridge::PeerDeaths;
using ftb::mpi_bridge::PeerProcess;

namespace {

struct Recorded {
  std::vector<int> deaths;
  PeerDeaths table{[this](int rank) { deaths.push_back(rank); }};
};

std::vector<PeerProcess> fourRanks() { return {{"n0", 100}, {"n1", 101}, {"n2", 102}, {"n3", 103}}; }

}  // namespace

BOOST_AUTO_TEST_CASE(the_death_of_a_peers_current_process_counts) {
  Recorded r;
  r.table.learn(fourRanks(), 0);
  BOOST_CHECK(r.table.announce(3, "n3", 103));
  BOOST_CHECK(r.deaths == std::vector<int>{3});
}

BOOST_AUTO_TEST_CASE(nothing_counts_before_the_table_is_known) {
  Recorded r;
  BOOST_CHECK(!r.table.announce(3, "n3", 103));
  BOOST_CHECK(r.deaths.empty());
}

BOOST_AUTO_TEST_CASE(a_will_of_a_process_that_no_longer_holds_the_rank_is_ignored) {
  Recorded r;
  r.table.learn(fourRanks(), 0);
  BOOST_CHECK(!r.table.announce(3, "n3", 99));   // an earlier process of rank 3
  BOOST_CHECK(!r.table.announce(3, "s0", 103));  // same pid, another node
  BOOST_CHECK(!r.table.announce(0, "n0", 100));  // this process itself
  BOOST_CHECK(!r.table.announce(4, "n4", 104));  // no such rank
  BOOST_CHECK(!r.table.announce(-1, "n0", 100));
  BOOST_CHECK(r.deaths.empty());
}

BOOST_AUTO_TEST_CASE(one_repair_per_table_and_none_while_repairing) {
  Recorded r;
  r.table.learn(fourRanks(), 0);
  BOOST_CHECK(r.table.announce(3, "n3", 103));
  BOOST_CHECK(!r.table.announce(2, "n2", 102));  // the repair under way finds it too
  r.table.repairing();
  BOOST_CHECK(!r.table.announce(3, "n3", 103));
  // After the repair: rank 3 is a replacement on the spare; its predecessor's late will is stale.
  auto after = fourRanks();
  after[3] = {"s0", 200};
  r.table.learn(after, 0);
  BOOST_CHECK(!r.table.announce(3, "n3", 103));
  BOOST_CHECK(r.table.announce(3, "s0", 200));
  BOOST_CHECK((r.deaths == std::vector<int>{3, 3}));
}

BOOST_AUTO_TEST_CASE(a_lost_node_counts_if_a_named_rank_runs_there_now) {
  Recorded r;
  r.table.learn(fourRanks(), 0);
  BOOST_CHECK(!r.table.announceNode("n3", {2}));     // rank 2 runs on n2
  BOOST_CHECK(!r.table.announceNode("n9", {3}));     // rank 3 does not run on n9
  BOOST_CHECK(!r.table.announceNode("n3", {7, -1}));  // no such ranks
  BOOST_CHECK(r.deaths.empty());
  BOOST_CHECK(r.table.announceNode("n3", {3}));
  BOOST_CHECK(r.deaths == std::vector<int>{3});
  BOOST_CHECK(!r.table.announceNode("n2", {2}));  // one repair per table
}

BOOST_AUTO_TEST_CASE(a_lost_node_this_rank_runs_on_is_only_a_lost_agent) {
  Recorded r;
  auto peers = fourRanks();
  peers[1].node = "n0";  // ranks 0 and 1 share n0
  r.table.learn(peers, 0);
  BOOST_CHECK(!r.table.announceNode("n0", {0, 1}));
  BOOST_CHECK(r.deaths.empty());
}

BOOST_AUTO_TEST_CASE(the_ranks_of_a_job_are_read_from_job_ranks) {
  using ftb::mpi_bridge::ranksOfJob;
  BOOST_CHECK((ranksOfJob("J:1,3;J8:", "J") == std::vector<int>{1, 3}));
  BOOST_CHECK(ranksOfJob("J:1,3;J8:", "J8").empty());
  BOOST_CHECK(ranksOfJob("J8:4", "J").empty());  // a prefix is not the job
  BOOST_CHECK((ranksOfJob("J8:4;J:0", "J") == std::vector<int>{0}));
  BOOST_CHECK(ranksOfJob("J:1,x", "J").empty());
  BOOST_CHECK(ranksOfJob("", "J").empty());
}
