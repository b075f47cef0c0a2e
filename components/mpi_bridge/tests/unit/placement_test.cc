#define BOOST_TEST_MODULE mpi_bridge_placement
#include <boost/test/unit_test.hpp>

#include <set>

#include "components/mpi_bridge/placement.h"

using ftb::mpi_bridge::formGroups;
using ftb::mpi_bridge::Groups;

namespace {

// Every rank in exactly one group, groups within size, members in distinct domains.
void checkInvariants(const Groups& g, const std::vector<std::string>& domains, int group_size) {
  std::set<int> seen;
  for (std::size_t gi = 0; gi < g.members.size(); ++gi) {
    std::set<std::string> ds;
    for (std::size_t p = 0; p < g.members[gi].size(); ++p) {
      int r = g.members[gi][p];
      BOOST_CHECK(seen.insert(r).second);
      BOOST_CHECK(ds.insert(domains[r]).second);
      BOOST_CHECK_EQUAL(g.group_of[r], static_cast<int>(gi));
      BOOST_CHECK_EQUAL(g.position[r], static_cast<int>(p));
    }
    BOOST_CHECK_LE(static_cast<int>(g.members[gi].size()), group_size + 1);
  }
  BOOST_CHECK_EQUAL(seen.size(), domains.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(two_ranks_per_node_make_groups_across_nodes) {
  std::vector<std::string> d = {"a", "a", "b", "b", "c", "c", "d", "d"};
  Groups g = formGroups(d, 4);
  checkInvariants(g, d, 4);
  BOOST_REQUIRE_EQUAL(g.members.size(), 2u);
  BOOST_CHECK((g.members[0] == std::vector<int>{0, 2, 4, 6}));
  BOOST_CHECK((g.members[1] == std::vector<int>{1, 3, 5, 7}));
}

BOOST_AUTO_TEST_CASE(any_rank_count_works_and_the_last_group_is_smaller) {
  for (int ranks = 2; ranks <= 23; ++ranks) {
    std::vector<std::string> d;
    for (int r = 0; r < ranks; ++r) d.push_back("node" + std::to_string(r % 5));
    Groups g = formGroups(d, 4);
    checkInvariants(g, d, 4);
    for (const auto& m : g.members) BOOST_CHECK_GE(m.size(), 2u);
  }
}

BOOST_AUTO_TEST_CASE(a_rank_alone_in_the_last_domain_joins_a_group_without_that_domain) {
  std::vector<std::string> d = {"n0", "n0", "n1", "n1", "n2", "n2", "n3"};
  Groups g = formGroups(d, 3);
  checkInvariants(g, d, 3);
  BOOST_REQUIRE_EQUAL(g.members.size(), 2u);
  BOOST_CHECK((g.members[0] == std::vector<int>{0, 2, 4, 6}));
  BOOST_CHECK((g.members[1] == std::vector<int>{1, 3, 5}));
}

BOOST_AUTO_TEST_CASE(a_single_domain_leaves_ranks_unprotected) {
  std::vector<std::string> d = {"n0", "n0", "n0"};
  Groups g = formGroups(d, 4);
  BOOST_CHECK_EQUAL(g.members.size(), 3u);
  for (const auto& m : g.members) BOOST_CHECK_EQUAL(m.size(), 1u);
}

BOOST_AUTO_TEST_CASE(failure_domains_group_nodes) {
  // Nodes a,b share a power domain P; c,d share Q: groups must span P and Q.
  std::vector<std::string> d = {"P", "P", "Q", "Q"};
  Groups g = formGroups(d, 4);
  checkInvariants(g, d, 4);
  BOOST_CHECK_EQUAL(g.members.size(), 2u);
}
