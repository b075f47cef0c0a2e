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

// A copy, not a reference: callers pass report()'s temporary vector (a
// reference into it dangled; found by the unit tests under --config=asan).
SeenEntry entry(const SeenVector& seen, const std::string& publisher) {
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

BOOST_AUTO_TEST_CASE(publishers_keep_their_own_sequences_when_their_events_interleave) {
  RelayLog log(100, 60s);
  BOOST_CHECK(log.admit(ev(1, "p"), "a", 0s));
  BOOST_CHECK(log.admit(ev(1, "q"), "a", 0s));  // another publisher's 1: not a duplicate
  BOOST_CHECK(!log.admit(ev(1, "p"), "a", 0s));
  BOOST_CHECK(log.admit(ev(2, "p"), "a", 0s));
  BOOST_CHECK(!log.admit(ev(1, "q"), "a", 0s));
  BOOST_CHECK_EQUAL(log.duplicates(), 2u);
}

BOOST_AUTO_TEST_CASE(a_publisher_forgotten_by_prune_is_seen_afresh) {
  RelayLog log(100, 10s);
  BOOST_CHECK(log.admit(ev(7, "p"), "a", 0s));
  log.prune(30s);  // quiet for more than twice the retention age: forgotten
  BOOST_CHECK(log.admit(ev(7, "p"), "a", 30s));  // first sight again (and no stale state)
  const SeenEntry& e = entry(log.report(everything(), {}), "p");
  BOOST_CHECK_EQUAL(e.high, 7u);
  BOOST_CHECK(e.holes.empty());
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
  const Replay out = log.missing(everything(), theirs, 2s, 6s, "them");
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{2, 4, 5, 6, 2}));
  BOOST_CHECK_EQUAL(out.events.back().publisher, "q");
  BOOST_CHECK(out.gone.empty());  // everything they lack is retained
  BOOST_CHECK(log.missing(everything(), theirs, 0s, 6s, "them").events.empty());  // no repair
}

BOOST_AUTO_TEST_CASE(fill_serves_retained_events_in_the_holes_and_keeps_the_rest) {
  RelayLog log(100, 60s);
  for (uint64_t s = 5; s <= 8; ++s) log.admit(ev(s), "a", 0s);
  SeenVector wanted{{"p", 9, {{3, 6}}}, {"q", 4, {{1, 3}}}};
  const Replay out = log.fill(wanted);
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{5, 6}));
  BOOST_CHECK(out.gone.empty());  // 3 and 4 were never seen here
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

namespace {

std::vector<SeqRange> goneOf(const Replay& replay, const std::string& publisher) {
  for (const GoneEntry& g : replay.gone) {
    if (g.publisher == publisher) return g.ranges;
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(subtract_and_intersect_ranges) {
  const std::vector<SeqRange> a{{1, 10}, {20, 30}};
  const std::vector<SeqRange> b{{3, 4}, {9, 22}, {30, 40}};
  BOOST_CHECK((subtractRanges(a, b) == std::vector<SeqRange>{{1, 2}, {5, 8}, {23, 29}}));
  BOOST_CHECK((intersectRanges(a, b) == std::vector<SeqRange>{{3, 4}, {9, 10}, {20, 22}, {30, 30}}));
  BOOST_CHECK(subtractRanges(a, {{0, 50}}).empty());
}

BOOST_AUTO_TEST_CASE(missing_reports_the_evicted_tail_as_gone) {
  RelayLog log(2, 60s);  // keeps the last 2 events
  for (uint64_t s = 1; s <= 10; ++s) log.admit(ev(s), "", 0s);
  // They saw up to 4: 5..8 are evicted here, 9 and 10 retained.
  const Replay out = log.missing(everything(), {{"p", 4, {}}}, 1s, 0s, "them");
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{9, 10}));
  BOOST_REQUIRE_EQUAL(out.gone.size(), 1u);
  BOOST_CHECK_EQUAL(out.gone[0].event_space, "FTB.X");
  BOOST_CHECK((out.gone[0].ranges == std::vector<SeqRange>{{5, 8}}));
  // The pure tail: another publisher pushed all of p out of retention.
  log.admit(ev(1, "q"), "", 0s);
  log.admit(ev(2, "q"), "", 0s);
  const Replay tail = log.missing(everything(), {{"p", 4, {}}}, 1s, 0s, "them");
  for (const TreeEvent& e : tail.events) BOOST_CHECK_EQUAL(e.publisher, "q");  // q is replayed, p gone
  BOOST_CHECK((goneOf(tail, "p") == std::vector<SeqRange>{{5, 10}}));
  BOOST_CHECK(goneOf(tail, "q").empty());  // they never reported q: nothing to say
}

BOOST_AUTO_TEST_CASE(gone_excludes_what_was_never_seen_and_what_is_retained) {
  RelayLog log(3, 60s);
  log.admit(ev(1), "a", 0s);
  log.admit(ev(5), "a", 0s);   // 2..4 a hole here: never seen, so not gone
  for (uint64_t s = 6; s <= 9; ++s) log.admit(ev(s), "a", 0s);  // retains 7, 8, 9
  // Their holes 2..3 and 6..7, and beyond their highest 8: 9.
  const Replay out = log.missing(everything(), {{"p", 8, {{2, 3}, {6, 7}}}}, 1s, 0s, "them");
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{7, 9}));
  BOOST_CHECK((goneOf(out, "p") == std::vector<SeqRange>{{6, 6}}));
  // No gone for a publisher whose events come from them, or outside their interest.
  BOOST_CHECK(log.missing(everything(), {{"p", 4, {}}}, 1s, 0s, "a").gone.empty());
  InterestMatcher other;
  other.assign({"event_space=FTB.Y"});
  BOOST_CHECK(log.missing(other, {{"p", 4, {}}}, 1s, 0s, "them").gone.empty());
}

BOOST_AUTO_TEST_CASE(fill_reports_seen_but_evicted_holes_as_gone_and_keeps_the_unseen) {
  RelayLog log(2, 60s);
  for (uint64_t s = 5; s <= 9; ++s) log.admit(ev(s), "a", 0s);  // retains 8, 9
  SeenVector wanted{{"p", 12, {{2, 8}, {10, 11}}}};
  const Replay out = log.fill(wanted);
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{8}));
  BOOST_CHECK((goneOf(out, "p") == std::vector<SeqRange>{{5, 7}}));
  // Left to ask further toward the publisher: what was never seen here.
  BOOST_CHECK((wanted[0].holes == std::vector<SeqRange>{{2, 4}, {10, 11}}));
}

BOOST_AUTO_TEST_CASE(settle_marks_gone_as_seen_and_returns_only_the_news) {
  RelayLog log(100, 60s);
  log.admit(ev(1), "a", 0s);
  log.admit(ev(6), "a", 0s);  // hole 2..5
  const auto fresh = log.settle({"p", "FTB.X", {{1, 3}, {8, 9}}}, "b", 1s);
  BOOST_CHECK((fresh == std::vector<SeqRange>{{2, 3}, {8, 9}}));
  const SeenVector seen = log.report(everything(), {});
  const SeenEntry& e = entry(seen, "p");
  BOOST_CHECK_EQUAL(e.high, 9u);
  BOOST_CHECK((e.holes == std::vector<SeqRange>{{4, 5}, {7, 7}}));
  BOOST_CHECK(!log.admit(ev(3), "a", 1s));  // a late copy of a gone one: dropped, exactly once
  BOOST_CHECK(log.admit(ev(4), "a", 1s));
  BOOST_CHECK(log.settle({"p", "FTB.X", {{2, 3}}}, "b", 1s).empty());
  // A publisher first heard of through a gone notice.
  BOOST_CHECK((log.settle({"q", "FTB.X", {{3, 4}}}, "b", 1s) == std::vector<SeqRange>{{3, 4}}));
  BOOST_CHECK(log.upstream("q") == "b");
}
