#define BOOST_TEST_MODULE tree_local_order
#include <boost/test/unit_test.hpp>

#include <initializer_list>

#include "agent/tree/local_order.h"
#include "tests/unit/tree/tree_test_events.h"

using namespace ftb::tree;
using namespace ftb::tree::testing;
using namespace std::chrono_literals;

namespace {

// A LocalOrder with a 3 s timeout and what it has released so far.
struct Order {
  LocalOrder order{3s};
  std::vector<TreeEvent> ready;
  void feed(std::initializer_list<uint64_t> sequences, Nanos at, const std::string& publisher = "p") {
    for (uint64_t s : sequences) order.arrive(ev(s, publisher), at, ready);
  }
  bool released(const std::vector<uint64_t>& expected) const { return seqs(ready) == expected; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(in_order_events_pass_at_once) {
  Order o;
  o.feed({5, 6, 7}, 0s);
  BOOST_CHECK(o.released({5, 6, 7}));
  BOOST_CHECK_EQUAL(o.order.held(), 0u);
}

BOOST_AUTO_TEST_CASE(a_gap_fill_releases_what_waited_behind_it) {
  Order o;
  o.feed({1, 4, 3}, 0s);
  BOOST_CHECK(o.released({1}));
  BOOST_CHECK_EQUAL(o.order.held(), 2u);
  o.feed({2}, 1s);
  BOOST_CHECK(o.released({1, 2, 3, 4}));
  BOOST_CHECK_EQUAL(o.order.held(), 0u);
}

BOOST_AUTO_TEST_CASE(publishers_are_ordered_independently) {
  Order o;
  o.feed({1, 3}, 0s, "a");
  o.feed({1}, 0s, "b");
  BOOST_REQUIRE_EQUAL(o.ready.size(), 2u);
  BOOST_CHECK_EQUAL(o.ready[1].publisher, "b");
}

BOOST_AUTO_TEST_CASE(gaps_are_reported_once_old_enough) {
  Order o;
  o.feed({1}, 0s);
  o.feed({3, 6}, 1s);
  BOOST_CHECK(o.order.gaps(1s, 200ms).empty());
  const SeenVector gaps = o.order.gaps(2s, 200ms);
  BOOST_REQUIRE_EQUAL(gaps.size(), 1u);
  BOOST_CHECK_EQUAL(gaps[0].publisher, "p");
  BOOST_CHECK_EQUAL(gaps[0].high, 6u);
  BOOST_CHECK((gaps[0].holes == std::vector<SeqRange>{{2, 2}, {4, 5}}));
}

BOOST_AUTO_TEST_CASE(a_gap_is_given_up_after_the_timeout_and_a_late_fill_dropped) {
  Order o;
  o.feed({1}, 0s);
  o.feed({4}, 1s);
  BOOST_CHECK(o.order.expire(2s, 0s, o.ready).empty());
  const auto lost = o.order.expire(5s, 0s, o.ready);  // 2 and 3 lost
  BOOST_REQUIRE_EQUAL(lost.size(), 1u);
  BOOST_CHECK_EQUAL(lost[0].events, 2u);
  BOOST_CHECK_EQUAL(lost[0].event_space, "FTB.X");
  BOOST_CHECK(lost[0].cause == LossCause::kNotFilledInTime);
  BOOST_CHECK(o.released({1, 4}));
  o.feed({2, 5}, 6s);  // 2 is too late: 4 went out already
  BOOST_CHECK(o.released({1, 4, 5}));
}

BOOST_AUTO_TEST_CASE(a_stretched_hold_waits_past_the_timeout_for_a_late_fill) {
  Order o;
  o.feed({1}, 0s);
  o.feed({4}, 1s);
  BOOST_CHECK(o.order.expire(5s, 10s, o.ready).empty());  // the 3 s timeout has passed
  o.feed({2, 3}, 6s);
  BOOST_CHECK(o.released({1, 2, 3, 4}));
  o.feed({6}, 7s);
  BOOST_CHECK(o.order.expire(8s, 0s, o.ready).empty());  // the timeout is the floor
  BOOST_CHECK_EQUAL(o.order.expire(11s, 0s, o.ready).size(), 1u);
}

BOOST_AUTO_TEST_CASE(events_predating_the_first_delivered_are_dropped) {
  Order o;
  o.feed({10, 9, 11}, 0s);
  BOOST_CHECK(o.released({10, 11}));
  BOOST_CHECK(o.order.gaps(1s, 0s).empty());
}

BOOST_AUTO_TEST_CASE(a_gone_tail_is_counted_lost_at_once) {
  Order o;
  o.feed({1, 2}, 0s);
  // 3..7 will never come and nothing follows them: no gap would ever show.
  const auto lost = o.order.settle({"p", "FTB.X", {{3, 7}}}, o.ready);
  BOOST_REQUIRE_EQUAL(lost.size(), 1u);
  BOOST_CHECK_EQUAL(lost[0].events, 5u);
  BOOST_CHECK_EQUAL(lost[0].event_space, "FTB.X");
  BOOST_CHECK(lost[0].cause == LossCause::kNoLongerRetained);
  o.feed({8}, 1s);  // the stream goes on in order
  BOOST_CHECK(o.released({1, 2, 8}));
  BOOST_CHECK(o.order.expire(10s, 0s, o.ready).empty());
}

BOOST_AUTO_TEST_CASE(a_waiting_gap_covered_by_gone_is_released_at_once) {
  Order o;
  o.feed({1}, 0s);
  o.feed({5, 6}, 0s);
  const auto lost = o.order.settle({"p", "FTB.X", {{1, 4}}}, o.ready);  // 1 was delivered already
  BOOST_REQUIRE_EQUAL(lost.size(), 1u);
  BOOST_CHECK_EQUAL(lost[0].events, 3u);
  BOOST_CHECK(o.released({1, 5, 6}));
  BOOST_CHECK_EQUAL(o.order.held(), 0u);
}

BOOST_AUTO_TEST_CASE(a_partly_gone_gap_waits_for_the_rest_then_steps_over_the_gone) {
  Order o;
  o.feed({1}, 0s);
  o.feed({6}, 0s);
  // 2 may still be filled; 3..5 will not.
  BOOST_CHECK(o.order.settle({"p", "FTB.X", {{3, 5}}}, o.ready).empty());
  const SeenVector gaps = o.order.gaps(1s, 0s);
  BOOST_REQUIRE_EQUAL(gaps.size(), 1u);
  BOOST_CHECK((gaps[0].holes == std::vector<SeqRange>{{2, 2}}));  // only what may still come
  std::vector<TreeEvent> ready;
  const auto lost = o.order.arrive(ev(2), 1s, ready);
  BOOST_REQUIRE_EQUAL(lost.size(), 1u);
  BOOST_CHECK_EQUAL(lost[0].events, 3u);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{2, 6}));
}

BOOST_AUTO_TEST_CASE(expiry_counts_an_unfilled_gap_and_the_gone_behind_it_once) {
  Order o;
  o.feed({1}, 0s);
  o.feed({4}, 0s);
  BOOST_CHECK(o.order.settle({"p", "FTB.X", {{3, 3}, {5, 6}}}, o.ready).empty());
  const auto lost = o.order.expire(5s, 0s, o.ready);  // 2 and 3 given up, then 4, then 5..6 gone
  BOOST_REQUIRE_EQUAL(lost.size(), 2u);
  BOOST_CHECK_EQUAL(lost[0].events, 2u);
  BOOST_CHECK(lost[0].cause == LossCause::kNotFilledInTime);
  BOOST_CHECK_EQUAL(lost[1].events, 2u);
  BOOST_CHECK(lost[1].cause == LossCause::kNoLongerRetained);
  BOOST_CHECK(o.released({1, 4}));
  o.feed({7}, 6s);
  BOOST_CHECK(o.released({1, 4, 7}));
}

BOOST_AUTO_TEST_CASE(gone_of_a_publisher_never_delivered_here_is_ignored) {
  Order o;
  BOOST_CHECK(o.order.settle({"p", "FTB.X", {{1, 3}}}, o.ready).empty());
  o.feed({4}, 0s);
  BOOST_CHECK(o.released({4}));
}
