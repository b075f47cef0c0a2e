#define BOOST_TEST_MODULE outbound_queue
#include <boost/test/unit_test.hpp>

#include "agent/sessions/outbound_queue.h"

using ftb::agent::OutboundQueue;

BOOST_AUTO_TEST_CASE(starts_empty) {
  OutboundQueue q(10);
  BOOST_CHECK(q.empty());
  BOOST_CHECK_EQUAL(q.queuedEvents(), 0u);
  BOOST_CHECK_EQUAL(q.missedPending(), 0u);
  BOOST_CHECK_EQUAL(q.missedTotal(), 0u);
}

BOOST_AUTO_TEST_CASE(frames_come_out_in_order_and_events_are_counted) {
  OutboundQueue q(10);
  BOOST_CHECK(q.push("a", 3));
  BOOST_CHECK(q.push("b", 4));
  BOOST_CHECK(q.push("c", 3));  // exactly at capacity
  BOOST_CHECK_EQUAL(q.queuedEvents(), 10u);
  BOOST_CHECK_EQUAL(q.front(), "a");
  q.pop();
  BOOST_CHECK_EQUAL(q.queuedEvents(), 7u);
  BOOST_CHECK_EQUAL(q.front(), "b");
  q.pop();
  BOOST_CHECK_EQUAL(q.front(), "c");
  q.pop();
  BOOST_CHECK(q.empty());
  BOOST_CHECK_EQUAL(q.queuedEvents(), 0u);
}

BOOST_AUTO_TEST_CASE(a_frame_that_would_exceed_capacity_is_refused_whole) {
  OutboundQueue q(10);
  BOOST_CHECK(q.push("a", 8));
  BOOST_CHECK(!q.push("b", 3));  // 11 > 10: nothing queued
  BOOST_CHECK_EQUAL(q.queuedEvents(), 8u);
  BOOST_CHECK(q.push("c", 2));  // still fits
  BOOST_CHECK_EQUAL(q.queuedEvents(), 10u);
  BOOST_CHECK(!q.push("d", 1));
  q.pop();
  BOOST_CHECK_EQUAL(q.front(), "c");
  BOOST_CHECK(q.push("e", 8));  // room again after draining
  BOOST_CHECK_EQUAL(q.queuedEvents(), 10u);
}

BOOST_AUTO_TEST_CASE(an_empty_queue_takes_one_frame_larger_than_capacity) {
  // A batch bigger than the whole bound must not be dropped forever.
  OutboundQueue q(4);
  BOOST_CHECK(q.push("big", 256));
  BOOST_CHECK_EQUAL(q.queuedEvents(), 256u);
  BOOST_CHECK(!q.push("more", 1));
  q.pop();
  BOOST_CHECK(q.empty());
  BOOST_CHECK(q.push("small", 1));
}

BOOST_AUTO_TEST_CASE(missed_events_are_counted_until_reported) {
  OutboundQueue q(1);
  q.addMissed(5);
  q.addMissed(7);
  BOOST_CHECK_EQUAL(q.missedPending(), 12u);
  BOOST_CHECK_EQUAL(q.missedTotal(), 12u);
  q.clearMissedPending();
  BOOST_CHECK_EQUAL(q.missedPending(), 0u);
  BOOST_CHECK_EQUAL(q.missedTotal(), 12u);  // the total stays for ftbctl
  q.addMissed(1);
  BOOST_CHECK_EQUAL(q.missedPending(), 1u);
  BOOST_CHECK_EQUAL(q.missedTotal(), 13u);
}

BOOST_AUTO_TEST_CASE(missed_counts_are_independent_of_queued_frames) {
  OutboundQueue q(2);
  BOOST_CHECK(q.push("a", 2));
  q.addMissed(3);
  q.pop();
  BOOST_CHECK(q.empty());
  BOOST_CHECK_EQUAL(q.missedPending(), 3u);  // draining does not lose the count
}
