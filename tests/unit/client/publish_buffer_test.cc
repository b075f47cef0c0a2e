#define BOOST_TEST_MODULE publish_buffer
#include <boost/test/unit_test.hpp>

#include "client/publish_buffer.h"

#include <thread>

using ftb::PublishBuffer;

BOOST_AUTO_TEST_CASE(assigns_increasing_sequence_numbers_and_trims_on_ack) {
  PublishBuffer buffer(10);
  for (int i = 1; i <= 5; ++i) {
    auto seq = buffer.append([&](uint64_t s) { return "e" + std::to_string(s); });
    BOOST_REQUIRE(seq.ok());
    BOOST_CHECK_EQUAL(*seq, static_cast<uint64_t>(i));
  }
  BOOST_CHECK_EQUAL(buffer.lastAssigned(), 5u);
  buffer.acknowledge(3);
  BOOST_CHECK_EQUAL(buffer.acked(), 3u);
  BOOST_CHECK_EQUAL(buffer.firstUnacked(), 4u);
  uint64_t cursor = 1;  // behind the acked point: starts at the first unacked
  auto events = buffer.takeFrom(&cursor, 100, 1 << 20);
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_CHECK_EQUAL(events[0], "e4");
  BOOST_CHECK_EQUAL(events[1], "e5");
  BOOST_CHECK_EQUAL(cursor, 6u);
  buffer.acknowledge(2);  // stale acks change nothing
  BOOST_CHECK_EQUAL(buffer.acked(), 3u);
}

BOOST_AUTO_TEST_CASE(full_buffer_refuses_with_resource_exhausted_until_acked) {
  PublishBuffer buffer(3);
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(buffer.append([](uint64_t) { return std::string("x"); }).ok());
  auto refused = buffer.append([](uint64_t) { return std::string("x"); });
  BOOST_REQUIRE(!refused.ok());
  BOOST_CHECK(refused.status().code() == ftb::Code::kResourceExhausted);
  BOOST_CHECK(refused.status().message().find("not yet acknowledged") != std::string::npos);
  buffer.acknowledge(1);
  auto accepted = buffer.append([](uint64_t) { return std::string("x"); });
  BOOST_REQUIRE(accepted.ok());
  BOOST_CHECK_EQUAL(*accepted, 4u);  // no sequence number was burnt by the refusal
}

BOOST_AUTO_TEST_CASE(take_respects_event_and_byte_limits) {
  PublishBuffer buffer(100);
  for (int i = 0; i < 10; ++i) (void)buffer.append([](uint64_t) { return std::string(100, 'p'); });
  uint64_t cursor = 1;
  BOOST_CHECK_EQUAL(buffer.takeFrom(&cursor, 3, 1 << 20).size(), 3u);
  BOOST_CHECK_EQUAL(cursor, 4u);
  BOOST_CHECK_EQUAL(buffer.takeFrom(&cursor, 100, 250).size(), 3u);  // stops once 250 bytes are reached
  BOOST_CHECK_EQUAL(cursor, 7u);
}

BOOST_AUTO_TEST_CASE(wait_acked_reports_timeout_and_success) {
  PublishBuffer buffer(10);
  (void)buffer.append([](uint64_t) { return std::string("x"); });
  BOOST_CHECK(!buffer.waitAcked(1, std::chrono::milliseconds(0)));
  buffer.acknowledge(1);
  BOOST_CHECK(buffer.waitAcked(1, std::chrono::milliseconds(0)));
}

BOOST_AUTO_TEST_CASE(a_waiting_append_succeeds_once_an_ack_makes_room) {
  PublishBuffer buffer(2);
  auto bytes = [](uint64_t s) { return "e" + std::to_string(s); };
  BOOST_REQUIRE(buffer.append(bytes).ok());
  BOOST_REQUIRE(buffer.append(bytes).ok());
  // The I/O thread's acknowledgement arrives, usually while the publisher
  // waits (the integration test ftb05 burst_test makes it wait thousands of times).
  std::thread acker([&] { buffer.acknowledge(1); });
  auto third = buffer.append(bytes, std::chrono::seconds(30));
  acker.join();
  BOOST_REQUIRE(third.ok());
  BOOST_TEST(*third == 3u);
}

BOOST_AUTO_TEST_CASE(a_waiting_append_fails_when_nothing_is_acknowledged_in_time) {
  PublishBuffer buffer(1);
  auto bytes = [](uint64_t s) { return "e" + std::to_string(s); };
  BOOST_REQUIRE(buffer.append(bytes).ok());
  auto refused = buffer.append(bytes, std::chrono::milliseconds(20));
  BOOST_REQUIRE(!refused.ok());
  BOOST_TEST((refused.status().code() == ftb::Code::kResourceExhausted));
  BOOST_TEST(refused.status().message().find("acknowledged none for 20 ms") != std::string::npos,
             refused.status().message());
  // Without a wait it refuses at once, as before.
  BOOST_TEST(!buffer.append(bytes).ok());
}
