#define BOOST_TEST_MODULE launcher_lists
#include <boost/test/unit_test.hpp>

#include <set>

#include "components/launcher_bridge/lists.h"

using namespace ftb::launcher;
using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_CASE(split_keeps_the_non_empty_items_in_order) {
  BOOST_TEST(splitList("n1,n4,n3") == (Strings{"n1", "n4", "n3"}), boost::test_tools::per_element());
  BOOST_TEST(splitList(",n1,,n2,") == (Strings{"n1", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(splitList("").empty());
  BOOST_TEST(splitList("a\nb\n", '\n') == (Strings{"a", "b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(join_and_rank_list_are_what_split_reads) {
  BOOST_TEST(rankList({2, 3, 10}) == "2,3,10");
  BOOST_TEST(rankList({}).empty());
  BOOST_TEST(joinList(std::set<std::string>{"n4", "n1"}) == "n1,n4");
  BOOST_TEST(splitList(joinList(Strings{"a", "b"})) == (Strings{"a", "b"}), boost::test_tools::per_element());
}
