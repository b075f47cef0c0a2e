#define BOOST_TEST_MODULE tree_relay_log
#include <boost/test/unit_test.hpp>

#include "agent/tree/relay_log.h"
#include "tests/unit/tree/tree_test_events.h"

using namespace ftb::tree;
using namespace ftb::tree::testing;
using namespace std::chrono_literals;

namespace {

InterestMatcher everything() {
  InterestMatcher m;
  m.assign({""});
  return m;
}

const SeenEntry& entry(const SeenVector& seen, const std::string& publisher) {
  for (const SeenEntry& e : seen) {
    if (e.publisher == publisher) return e;
  }
  BOOST_FAIL("no entry for " + publisher);
  return seen.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(range_helpers_merge_and_split) {
  std::vector<SeqRange> r;
  addRange(r, {5, 7});
  addRange(r, {1, 2});
  addRange(r, {3, 4});  // adjacent: merges all
  BOOST_CHECK((r == std::vector<SeqRange>{{1, 7}}));
  removeValue(r, 4);
  BOOST_CHECK((r == std::vector<SeqRange>{{1, 3}, {5, 7}}));
  BOOST_CHECK(contains(r, 3));
  BOOST_CHECK(!contains(r, 4));
  BOOST_CHECK(!contains(r, 8));
}

BOOST_AUTO_TEST_CASE(duplicates_are_dropped_and_holes_let_fills_through) {
  RelayLog log(100, 60s);
  BOOST_CHECK(log.admit(ev(1), "a", 0s));
  BOOST_CHECK(log.admit(ev(4), "a", 0s));  // 2 and 3 become a hole
  BOOST_CHECK(!log.admit(ev(4), "b", 0s));
  BOOST_CHECK(log.admit(ev(3), "b", 0s));
  BOOST_CHECK(!log.admit(ev(3), "a", 0s));
  BOOST_CHECK(!log.admit(ev(1), "a", 0s));
  BOOST_CHECK_EQUAL(log.duplicates(), 3u);
  const SeenEntry& e = entry(log.report(everything(), {}), "p");
  BOOST_CHECK_EQUAL(e.high, 4u);
  BOOST_CHECK((e.holes == std::vector<SeqRange>{{2, 2}}));
}

BOOST_AUTO_TEST_CASE(a_replay_below_the_first_seen_lowers_it_and_leaves_holes) {
  RelayLog log(100, 60s);
  BOOST_CHECK(log.admit(ev(49), "a", 0s));
  // A replay for a side that needs older events, oldest first.
  BOOST_CHECK(log.admit(ev(21), "b", 0s));
  BOOST_CHECK(log.admit(ev(22), "b", 0s));
  BOOST_CHECK(!log.admit(ev(22), "b", 0s));
  const SeenEntry& e = entry(log.report(everything(), {}), "p");
  BOOST_CHECK((e.holes == std::vector<SeqRange>{{23, 48}}));
}

BOOST_AUTO_TEST_CASE(report_covers_the_interest_and_merges_what_the_far_side_lacks) {
  RelayLog log(100, 60s);
  for (uint64_t s = 10; s <= 12; ++s) log.admit(ev(s, "p", "FTB.A"), "a", 0s);
  log.admit(ev(1, "q", "FTB.B"), "a", 0s);
  InterestMatcher only_a;
  only_a.assign({"event_space=FTB.A"});
  // The side beyond has p up to 5 with a hole, and r we never saw.
  const SeenVector beyond{{"p", 5, {{3, 3}}}, {"r", 7, {}}};
  const SeenVector seen = log.report(only_a, beyond);
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);  // q is not in the interest
  const SeenEntry& p = entry(seen, "p");
  BOOST_CHECK_EQUAL(p.high, 12u);
  // Their hole, and what lies between their highest and our first.
  BOOST_CHECK((p.holes == std::vector<SeqRange>{{3, 3}, {6, 9}}));
  BOOST_CHECK_EQUAL(entry(seen, "r").high, 7u);
}

BOOST_AUTO_TEST_CASE(missing_replays_beyond_their_highest_and_in_their_holes) {
  RelayLog log(100, 60s);
  for (uint64_t s = 1; s <= 6; ++s) log.admit(ev(s), "a", std::chrono::seconds(s));
  log.admit(ev(1, "q"), "a", 1s);
  log.admit(ev(2, "q"), "a", 5s);
  log.admit(ev(7), "them", 6s);  // came from them: never sent back
  const SeenVector theirs{{"p", 3, {{2, 2}}}};
  // p: their hole and beyond; q (never seen): what arrived within the window.
  auto out = log.missing(everything(), theirs, 2s, 6s, "them");
  BOOST_CHECK((seqs(out) == std::vector<uint64_t>{2, 4, 5, 6, 2}));
  BOOST_CHECK_EQUAL(out.back().publisher, "q");
  BOOST_CHECK(log.missing(everything(), theirs, 0s, 6s, "them").empty());  // no repair
}

BOOST_AUTO_TEST_CASE(fill_serves_retained_events_in_the_holes_and_keeps_the_rest) {
  RelayLog log(100, 60s);
  for (uint64_t s = 5; s <= 8; ++s) log.admit(ev(s), "a", 0s);
  SeenVector wanted{{"p", 9, {{3, 6}}}, {"q", 4, {{1, 3}}}};
  BOOST_CHECK((seqs(log.fill(wanted)) == std::vector<uint64_t>{5, 6}));
  BOOST_CHECK((wanted[0].holes == std::vector<SeqRange>{{3, 4}}));
  BOOST_CHECK((wanted[1].holes == std::vector<SeqRange>{{1, 3}}));
  BOOST_CHECK(log.upstream("p") == "a");
  BOOST_CHECK(!log.upstream("q"));
}

BOOST_AUTO_TEST_CASE(retention_is_bounded_by_count_and_age) {
  RelayLog log(3, 10s);
  for (uint64_t s = 1; s <= 5; ++s) log.admit(ev(s), "a", std::chrono::seconds(s));
  BOOST_CHECK_EQUAL(log.retained(), 3u);
  log.prune(14s);  // 3 is older than 10 s
  BOOST_CHECK_EQUAL(log.retained(), 2u);
}
