// Replies over a recording sink: straight out when nothing waits, queued in
// order behind a client's deliveries, never kept past the bound on unread replies.
#define BOOST_TEST_MODULE replies
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>

#include "agent/routing/replies.h"
#include "client/clock.h"
#include "client/wire/codec.h"
#include "tests/support/recording_frame_sink.h"

using namespace ftb::agent;
namespace proto = ftb::proto;

namespace {

struct Fixture {
  ClientSession& open(const std::string& id) {
    auto s = std::make_unique<ClientSession>(16);
    s->routing_id = id;
    s->publisher_key = "key-" + id;
    return sessions.add(std::move(s), Sender{});
  }
  proto::Envelope ok(uint64_t request_id) {
    proto::Envelope e;
    e.set_request_id(request_id);
    e.mutable_ok();
    return e;
  }
  uint64_t requestIdOf(const std::string& frame) {
    auto e = ftb::wire::decode(frame.data(), frame.size());
    BOOST_REQUIRE(e.ok());
    return e->request_id();
  }

  ftb::ManualClock clock;
  SessionTable sessions{clock};
  ftb::testing::RecordingFrameSink sink;
  AgentConfig config;
  RateLimitedLog log;
  Replies replies{sessions, sink, config, log};
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_reply_goes_out_at_once_when_nothing_waits, Fixture) {
  open("c1");
  proto::Envelope answer = ok(7);
  replies.send("c1", answer);
  replies.send("ftbctl", answer);  // a control peer: no session
  BOOST_REQUIRE(sink.sent["c1"].size() == 1u);
  BOOST_TEST(requestIdOf(sink.sent["c1"][0]) == 7u);
  BOOST_TEST(sink.sent["ftbctl"].size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_full_pipe_queues_a_clients_reply_and_later_ones_behind_it, Fixture) {
  ClientSession& c = open("c1");
  sink.full.insert("c1");
  proto::Envelope first = ok(1), second = ok(2);
  replies.send("c1", first);
  sink.full.clear();
  replies.send("c1", second);  // behind the first, though the pipe has room now
  BOOST_TEST(sink.sent["c1"].empty());
  BOOST_REQUIRE(!c.outbound.empty());
  BOOST_TEST(requestIdOf(c.outbound.front()) == 1u);
  BOOST_TEST(c.outbound.queuedReplyBytes() > 0u);
}

BOOST_FIXTURE_TEST_CASE(an_error_carries_its_code_request_and_event_sequence, Fixture) {
  open("c1");
  replies.error("c1", proto::Error::NOT_FOUND, "no subscription 3", 9, 41);
  BOOST_REQUIRE(sink.sent["c1"].size() == 1u);
  auto e = ftb::wire::decode(sink.sent["c1"][0].data(), sink.sent["c1"][0].size());
  BOOST_REQUIRE(e.ok());
  BOOST_REQUIRE(e->has_error());
  BOOST_TEST(e->request_id() == 9u);
  BOOST_TEST(e->error().code() == proto::Error::NOT_FOUND);
  BOOST_TEST(e->error().message() == "no subscription 3");
  BOOST_TEST(e->error().event_seq() == 41u);
}

BOOST_FIXTURE_TEST_CASE(past_the_bound_on_unread_replies_none_is_kept, Fixture) {
  config.max_payload_bytes = 0;  // the bound is then 16 MiB
  ClientSession& c = open("c1");
  sink.full.insert("c1");
  proto::Envelope big;
  big.mutable_error()->set_message(std::string(1 << 20, 'x'));
  while (c.outbound.queuedReplyBytes() <= maxClientFrameBytes(config)) replies.send("c1", big);
  BOOST_TEST(!replies.haveRoom("c1"));
  const std::size_t queued = c.outbound.queuedReplyBytes();
  replies.send("c1", big);
  BOOST_TEST(c.outbound.queuedReplyBytes() == queued);
}

BOOST_FIXTURE_TEST_CASE(room_is_the_transports_to_tell_while_nothing_is_queued, Fixture) {
  open("c1");
  BOOST_TEST(replies.haveRoom("c1"));
  sink.unread.insert("c1");  // a stream client that read nothing since a frame was refused
  BOOST_TEST(!replies.haveRoom("c1"));
  BOOST_TEST(replies.haveRoom("ftbctl"));
}
