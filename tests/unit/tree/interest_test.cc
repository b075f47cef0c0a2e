#define BOOST_TEST_MODULE tree_interest
#include <boost/test/unit_test.hpp>

#include "agent/tree/interest.h"

using namespace ftb::tree;

BOOST_AUTO_TEST_CASE(an_empty_interest_matches_nothing) {
  InterestMatcher m;
  m.assign({});
  BOOST_CHECK(m.empty());
  BOOST_CHECK(!m.matches("FTB.SIM.A"));
}

BOOST_AUTO_TEST_CASE(matches_by_namespace_only) {
  InterestMatcher m;
  m.assign({"event_space=FTB.MPI.*"});
  BOOST_CHECK(m.matches("FTB.MPI.MPICH"));
  BOOST_CHECK(!m.matches("FTB.IPMI.BMC"));
  BOOST_CHECK(m.matches("FTB.MPI.MPICH"));  // answered from the cache
}

BOOST_AUTO_TEST_CASE(a_filter_without_namespace_or_unparsable_matches_everything) {
  InterestMatcher all;
  all.assign({""});
  BOOST_CHECK(all.matches("FTB.ANY.THING"));
  InterestMatcher broken;
  broken.assign({"no such key=1"});
  BOOST_CHECK(broken.matches("FTB.ANY.THING"));
}

BOOST_AUTO_TEST_CASE(assign_replaces_the_interest_and_its_cache) {
  InterestMatcher m;
  m.assign({"event_space=FTB.A.*"});
  BOOST_CHECK(m.matches("FTB.A.X"));
  m.assign({"event_space=FTB.B.*"});
  BOOST_CHECK(!m.matches("FTB.A.X"));
  BOOST_CHECK(m.matches("FTB.B.X"));
}

BOOST_AUTO_TEST_CASE(union_is_sorted_and_unique_and_grows_sees_new_entries) {
  const Interest a{"event_space=FTB.A.*", "event_space=FTB.B.*"};
  const Interest b{"event_space=FTB.B.*", "event_space=FTB.C.*"};
  const Interest u = unionOf({&a, &b});
  BOOST_CHECK((u == Interest{"event_space=FTB.A.*", "event_space=FTB.B.*", "event_space=FTB.C.*"}));
  BOOST_CHECK(grows(a, u));
  BOOST_CHECK(!grows(u, a));
  BOOST_CHECK(!grows(a, a));
}
