#define BOOST_TEST_MODULE notification_queue
#include <boost/test/unit_test.hpp>

#include "client/notification_queue.h"

using ftb::Notification;
using ftb::NotificationQueue;
using Kind = Notification::Kind;
using std::chrono::milliseconds;

namespace {
Notification eventWithPayload(std::string payload) {
  Notification n;
  n.event.payload = std::move(payload);
  return n;
}
}  // namespace

BOOST_AUTO_TEST_CASE(overflow_is_counted_and_reported_at_the_point_of_loss) {
  NotificationQueue queue(2);
  BOOST_CHECK_EQUAL(queue.push(eventWithPayload("a")), 0u);
  BOOST_CHECK_EQUAL(queue.push(eventWithPayload("b")), 0u);
  BOOST_CHECK_EQUAL(queue.push(eventWithPayload("lost1")), 1u);
  BOOST_CHECK_EQUAL(queue.push(eventWithPayload("lost2")), 1u);
  BOOST_CHECK_EQUAL(queue.pop(milliseconds(0))->event.payload, "a");
  BOOST_CHECK_EQUAL(queue.push(eventWithPayload("c")), 0u);  // room again: notice, then c

  BOOST_CHECK_EQUAL(queue.pop(milliseconds(0))->event.payload, "b");
  auto notice = queue.pop(milliseconds(0));
  BOOST_REQUIRE(notice.has_value());
  BOOST_CHECK(notice->kind == Kind::kMissed);
  BOOST_CHECK_EQUAL(notice->missed, 2u);
  BOOST_CHECK_EQUAL(queue.pop(milliseconds(0))->event.payload, "c");
  BOOST_CHECK(!queue.pop(milliseconds(0)).has_value());
}

BOOST_AUTO_TEST_CASE(drained_queue_hands_out_pending_loss) {
  NotificationQueue queue(1);
  (void)queue.push(eventWithPayload("a"));
  (void)queue.push(eventWithPayload("lost"));
  BOOST_CHECK_EQUAL(queue.pop(milliseconds(0))->event.payload, "a");
  auto notice = queue.pop(milliseconds(0));
  BOOST_REQUIRE(notice.has_value());
  BOOST_CHECK(notice->kind == Kind::kMissed);
  BOOST_CHECK_EQUAL(notice->missed, 1u);
}

BOOST_AUTO_TEST_CASE(agent_reported_loss_merges_with_local_loss) {
  NotificationQueue queue(4);
  Notification agent_loss;
  agent_loss.kind = Kind::kMissed;
  agent_loss.missed = 7;
  (void)queue.push(agent_loss);
  (void)queue.push(eventWithPayload("after"));
  auto notice = queue.pop(milliseconds(0));
  BOOST_REQUIRE(notice.has_value());
  BOOST_CHECK(notice->kind == Kind::kMissed);
  BOOST_CHECK_EQUAL(notice->missed, 7u);
  BOOST_CHECK_EQUAL(queue.pop(milliseconds(0))->event.payload, "after");
}

BOOST_AUTO_TEST_CASE(close_wakes_a_waiting_poller_with_nothing) {
  NotificationQueue queue(4);
  queue.close();
  BOOST_CHECK(!queue.pop(milliseconds(10000)).has_value());
}
