#define BOOST_TEST_MODULE tree_local_order
#include <boost/test/unit_test.hpp>

#include "agent/tree/local_order.h"

using namespace ftb::tree;
using namespace std::chrono_literals;

namespace {

TreeEvent ev(uint64_t seq, std::string publisher = "p") { return {publisher, seq, "FTB.X", false, nullptr}; }

std::vector<uint64_t> seqs(const std::vector<TreeEvent>& events) {
  std::vector<uint64_t> out;
  for (const auto& e : events) out.push_back(e.seq);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(in_order_events_pass_at_once) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  for (uint64_t s = 5; s <= 7; ++s) order.arrive(ev(s), 0s, ready);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{5, 6, 7}));
  BOOST_CHECK_EQUAL(order.held(), 0u);
}

BOOST_AUTO_TEST_CASE(a_gap_fill_releases_what_waited_behind_it) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  order.arrive(ev(1), 0s, ready);
  order.arrive(ev(4), 0s, ready);
  order.arrive(ev(3), 0s, ready);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{1}));
  BOOST_CHECK_EQUAL(order.held(), 2u);
  order.arrive(ev(2), 1s, ready);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{1, 2, 3, 4}));
  BOOST_CHECK_EQUAL(order.held(), 0u);
}

BOOST_AUTO_TEST_CASE(publishers_are_ordered_independently) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  order.arrive(ev(1, "a"), 0s, ready);
  order.arrive(ev(3, "a"), 0s, ready);
  order.arrive(ev(1, "b"), 0s, ready);
  BOOST_CHECK_EQUAL(ready.size(), 2u);
  BOOST_CHECK_EQUAL(ready[1].publisher, "b");
}

BOOST_AUTO_TEST_CASE(gaps_are_reported_once_old_enough) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  order.arrive(ev(1), 0s, ready);
  order.arrive(ev(3), 1s, ready);
  order.arrive(ev(6), 1s, ready);
  BOOST_CHECK(order.gaps(1s, 200ms).empty());
  const SeenVector gaps = order.gaps(2s, 200ms);
  BOOST_REQUIRE_EQUAL(gaps.size(), 1u);
  BOOST_CHECK_EQUAL(gaps[0].publisher, "p");
  BOOST_CHECK_EQUAL(gaps[0].high, 6u);
  BOOST_CHECK((gaps[0].holes == std::vector<SeqRange>{{2, 2}, {4, 5}}));
}

BOOST_AUTO_TEST_CASE(a_gap_is_given_up_after_the_timeout_and_a_late_fill_dropped) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  order.arrive(ev(1), 0s, ready);
  order.arrive(ev(4), 1s, ready);
  BOOST_CHECK_EQUAL(order.expire(2s, ready), 0u);
  BOOST_CHECK_EQUAL(order.expire(5s, ready), 2u);  // 2 and 3 lost
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{1, 4}));
  order.arrive(ev(2), 6s, ready);  // too late: 4 went out already
  order.arrive(ev(5), 6s, ready);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{1, 4, 5}));
}

BOOST_AUTO_TEST_CASE(events_predating_the_first_delivered_are_dropped) {
  LocalOrder order(3s);
  std::vector<TreeEvent> ready;
  order.arrive(ev(10), 0s, ready);
  order.arrive(ev(9), 0s, ready);
  order.arrive(ev(11), 0s, ready);
  BOOST_CHECK((seqs(ready) == std::vector<uint64_t>{10, 11}));
  BOOST_CHECK(order.gaps(1s, 0s).empty());
}
