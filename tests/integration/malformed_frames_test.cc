// A raw ZeroMQ peer sends the agent every kind of bad input; each gets an Error
// with the right code and a message that says what was wrong, bad_frames counts
// the frames that were not ftb messages, and a well-behaved SDK client keeps
// working throughout.
#define BOOST_TEST_MODULE malformed_frames
#include <boost/test/unit_test.hpp>

#include "client/client.h"
#include "client/wire/codec.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::proto::Envelope;
using ftb::proto::Error;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::RawIdentity;
using ftb::testing::RawPeer;

namespace {

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// The next Error the peer receives (acks and other replies are kept aside).
Error nextError(RawPeer& peer, const std::string& what) {
  auto e = peer.recvMatching([](const Envelope& e) { return e.has_error(); }, 5s);
  BOOST_REQUIRE_MESSAGE(e.has_value(), what << ": no Error reply within 5 s");
  BOOST_TEST_MESSAGE(what << " -> " << Error::Code_Name(e->error().code()) << ": "
                          << e->error().message());
  return e->error();
}

void checkError(const Error& error, Error::Code code, std::initializer_list<std::string_view> parts,
                const std::string& what) {
  BOOST_CHECK_MESSAGE(error.code() == code, what << ": code " << Error::Code_Name(error.code())
                                                 << ", expected " << Error::Code_Name(code)
                                                 << " (message: " << error.message() << ")");
  for (std::string_view part : parts) {
    BOOST_CHECK_MESSAGE(contains(error.message(), part),
                        what << ": message '" << error.message() << "' does not mention '" << part
                             << "'");
  }
}

Envelope publishOf(std::initializer_list<std::string> events) {
  Envelope e;
  for (const auto& bytes : events) e.mutable_publish()->add_events(bytes);
  return e;
}

// A good publisher and subscriber on the same agent: proves it still serves.
struct GoodPair {
  explicit GoodPair(const AgentProcess& agent)
      : pub(connectOrFail(agent.localEndpoint(), "FTB.TEST.GOOD", "good-pub")),
        sub(connectOrFail(agent.tcpEndpoint(), "FTB.TEST.WATCH", "good-sub")) {
    BOOST_REQUIRE(pub->declare({{"PING", ftb::Severity::kInfo}}).ok());
    auto id = sub->subscribe({.filter = "event_space=FTB.TEST.GOOD", .polling = true});
    BOOST_REQUIRE(id.ok());
    good = *id;
    auto raw = sub->subscribe({.filter = "event_space=FTB.RAW.*", .polling = true});
    BOOST_REQUIRE(raw.ok());
    raw_events = *raw;
  }

  void roundTrip(const std::string& step) {
    auto id = pub->publish("PING", step);
    BOOST_REQUIRE_MESSAGE(id.ok(), step << ": " << id.status().toString());
    auto n = sub->poll(good, 5s);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), "after " << step << ": the good client got nothing");
    BOOST_REQUIRE((*n)->kind == ftb::Notification::Kind::kEvent);
    BOOST_CHECK_EQUAL((*n)->event.payload, step);
    BOOST_CHECK_EQUAL(pub->stats().agent_errors, 0u);
    BOOST_CHECK_EQUAL(sub->stats().agent_errors, 0u);
  }

  std::unique_ptr<ftb::Client> pub, sub;
  ftb::SubscriptionId good = 0, raw_events = 0;
};

}  // namespace

BOOST_AUTO_TEST_CASE(frames_that_are_not_ftb_messages) {
  AgentProcess agent({"--max-payload-bytes=1024"});
  GoodPair good(agent);
  good.roundTrip("start");
  const uint64_t bad_before =
      ftb::testing::queryStatus(agent.ipcEndpoint()).counters().bad_frames();

  RawPeer peer(agent.localEndpoint());

  peer.sendBytes(std::string("\x07\xff\xfe not protobuf", 16));
  checkError(nextError(peer, "garbage"), Error::INVALID_ARGUMENT,
             {"malformed frame", "16 bytes", "ftb Envelope"}, "garbage");
  good.roundTrip("after garbage");

  peer.sendBytes("");
  // Zero bytes are no message at all, not a message of another version.
  checkError(nextError(peer, "empty frame"), Error::INVALID_ARGUMENT, {"empty"}, "empty frame");
  good.roundTrip("after empty frame");

  if (peer.overStream()) {
    BOOST_TEST_MESSAGE("multi-part: a ZeroMQ notion, the stream socket has no such message");
  } else {
    Envelope status;
    status.mutable_status_request();
    const std::string frame = ftb::wire::encode(status);
    peer.sendMultipart({frame, frame});
    checkError(nextError(peer, "multi-part"), Error::INVALID_ARGUMENT, {"single-frame"},
               "multi-part");
    // Neither part was served as a StatusRequest.
    auto extra = peer.recvMatching([](const Envelope& e) { return e.has_status_reply(); }, 300ms);
    BOOST_CHECK_MESSAGE(!extra.has_value(), "a part of a multi-part message was served");
  }
  good.roundTrip("after multi-part");

  {
    Envelope future;
    future.set_protocol_version(2);
    future.set_request_id(77);
    future.mutable_status_request();
    peer.sendBytes(future.SerializeAsString());  // not wire::encode: it would stamp version 1
    checkError(nextError(peer, "version 2"), Error::FAILED_PRECONDITION,
               {"protocol version 2", "version 1"}, "version 2");
  }
  good.roundTrip("after version 2");

  {
    Envelope empty;
    empty.set_request_id(78);
    peer.sendBytes(ftb::wire::encode(empty));
    checkError(nextError(peer, "no body"), Error::INVALID_ARGUMENT, {"no message"}, "no body");
  }
  good.roundTrip("after no body");

  {
    // A reply type is not a request the agent serves.
    Envelope wrong;
    wrong.mutable_hello_reply()->set_agent_name("me");
    auto reply = peer.call(wrong);
    BOOST_REQUIRE_MESSAGE(reply.has_value() && reply->has_error(),
                          "no Error (with the request id) for a HelloReply sent to the agent");
    checkError(reply->error(), Error::NOT_FOUND, {"not a request"}, "agent-to-client type");
  }
  good.roundTrip("after wrong type");

  // A frame far beyond the agent's size limit costs its sender the connection, nothing more.
  {
    RawPeer huge(agent.localEndpoint());
    huge.sendBytes(std::string(17 << 20, 'x'));
    good.roundTrip("after a 17 MiB frame");
  }

  const uint64_t bad_after =
      ftb::testing::queryStatus(agent.ipcEndpoint()).counters().bad_frames();
  // garbage, empty, multi-part (ZeroMQ only), version 2, no body, wrong type.
  BOOST_CHECK_EQUAL(bad_after - bad_before, peer.overStream() ? 5u : 6u);
}

BOOST_AUTO_TEST_CASE(requests_that_break_the_protocol_rules) {
  AgentProcess agent({"--max-payload-bytes=1024"});
  GoodPair good(agent);
  good.roundTrip("start");
  const ftb::proto::Counters before = ftb::testing::queryStatus(agent.ipcEndpoint()).counters();

  RawIdentity who;
  RawPeer peer(agent.localEndpoint());

  {
    auto reply = peer.call(publishOf({makeEventBytes(who, "SMALL", ftb::proto::INFO, 1)}));
    BOOST_REQUIRE_MESSAGE(reply.has_value() && reply->has_error(),
                          "no Error (with the request id) for a Publish before Hello");
    checkError(reply->error(), Error::UNAUTHENTICATED, {"Hello"}, "publish before hello");
    auto again = peer.call([] {
      Envelope s;
      s.mutable_subscribe()->set_subscription_id(1);
      return s;
    }());
    BOOST_REQUIRE(again.has_value());
    BOOST_CHECK_MESSAGE(again->has_error() && again->error().code() == Error::UNAUTHENTICATED,
                        "subscribe before hello: " << again->DebugString());
  }
  good.roundTrip("after publish before hello");

  {
    RawPeer bad_hello(agent.localEndpoint());
    RawIdentity bad = who;
    bad.event_space = "FTB..BAD";
    auto reply = bad_hello.call(makeHello(bad, {}));
    BOOST_REQUIRE_MESSAGE(reply.has_value(), "no answer to a Hello with an invalid namespace");
    BOOST_REQUIRE_MESSAGE(reply->has_error(), "Hello with FTB..BAD accepted: " << reply->DebugString());
    checkError(reply->error(), Error::INVALID_ARGUMENT, {"FTB..BAD", "segment 2 is empty"},
               "hello FTB..BAD");
    bad.event_space = "FTB.MPI!";
    reply = bad_hello.call(makeHello(bad, {}));
    BOOST_REQUIRE(reply.has_value() && reply->has_error());
    checkError(reply->error(), Error::INVALID_ARGUMENT, {"FTB.MPI!", "'!'"}, "hello FTB.MPI!");
    bad.event_space = "";
    reply = bad_hello.call(makeHello(bad, {}));
    BOOST_REQUIRE(reply.has_value() && reply->has_error());
    checkError(reply->error(), Error::INVALID_ARGUMENT, {"event space is empty"}, "hello ''");
    // Still no session: the client must be refused, not half-registered.
    auto status = bad_hello.call([] {
      Envelope h;
      h.mutable_heartbeat();
      return h;
    }());
    BOOST_REQUIRE(status.has_value());
    BOOST_CHECK(status->has_error() && status->error().code() == Error::UNAUTHENTICATED);
  }
  good.roundTrip("after bad hellos");

  {
    auto hello = peer.call(makeHello(who, {{"SMALL", ftb::proto::INFO}}));
    BOOST_REQUIRE_MESSAGE(hello.has_value() && hello->has_hello_reply(),
                          "raw Hello not accepted: " << (hello ? hello->DebugString() : "timeout"));
    BOOST_CHECK_EQUAL(hello->hello_reply().max_payload_bytes(), 1024u);
  }

  peer.send(publishOf({makeEventBytes(who, "SMALL", ftb::proto::INFO, 1, std::string(2000, 'p'))}));
  {
    Error e = nextError(peer, "oversized payload");
    checkError(e, Error::RESOURCE_EXHAUSTED, {"2000 bytes", "1024"}, "oversized payload");
    BOOST_CHECK_EQUAL(e.event_seq(), 1u);
  }

  peer.send(publishOf({makeEventBytes(who, "NOT_DECLARED", ftb::proto::INFO, 2)}));
  {
    Error e = nextError(peer, "undeclared event");
    checkError(e, Error::FAILED_PRECONDITION, {"NOT_DECLARED", "not declared"}, "undeclared event");
    BOOST_CHECK_EQUAL(e.event_seq(), 2u);
  }

  peer.send(publishOf({makeEventBytes(who, "SMALL", ftb::proto::FATAL, 3)}));
  {
    Error e = nextError(peer, "wrong severity");
    checkError(e, Error::INVALID_ARGUMENT, {"SMALL", "INFO", "FATAL"}, "wrong severity");
    BOOST_CHECK_EQUAL(e.event_seq(), 3u);
  }

  {
    RawIdentity other_space = who;
    other_space.event_space = "FTB.SOMEONE.ELSE";
    peer.send(publishOf({makeEventBytes(other_space, "SMALL", ftb::proto::INFO, 4)}));
    Error e = nextError(peer, "foreign event space");
    checkError(e, Error::INVALID_ARGUMENT, {"FTB.SOMEONE.ELSE", "FTB.RAW.TEST"},
               "foreign event space");
  }

  {
    RawIdentity impostor = who;
    impostor.pid = who.pid + 1;
    peer.send(publishOf({makeEventBytes(impostor, "SMALL", ftb::proto::INFO, 5)}));
    Error e = nextError(peer, "foreign origin");
    checkError(e, Error::INVALID_ARGUMENT, {"origin"}, "foreign origin");
  }

  peer.send(publishOf({std::string("\x07\x07\x07", 3)}));
  checkError(nextError(peer, "unparsable event"), Error::INVALID_ARGUMENT, {"does not parse"},
             "unparsable event");

  {
    Envelope s;
    s.mutable_subscribe()->set_subscription_id(7);
    s.mutable_subscribe()->set_filter("colour=blue");
    auto reply = peer.call(s);
    BOOST_REQUIRE(reply.has_value() && reply->has_error());
    checkError(reply->error(), Error::INVALID_ARGUMENT, {"colour"}, "bad filter");
    s.mutable_subscribe()->set_subscription_id(0);
    s.mutable_subscribe()->set_filter("");
    reply = peer.call(s);
    BOOST_REQUIRE(reply.has_value() && reply->has_error());
    checkError(reply->error(), Error::INVALID_ARGUMENT, {"0", "reserved"}, "subscription id 0");
    Envelope u;
    u.mutable_unsubscribe()->set_subscription_id(99);
    reply = peer.call(u);
    BOOST_REQUIRE(reply.has_value() && reply->has_error());
    checkError(reply->error(), Error::NOT_FOUND, {"99"}, "unknown unsubscribe");
  }
  good.roundTrip("after refused events");

  // The raw client's session survived all of that: a good event goes through,
  // and none of the refused ones ever reached a subscriber.
  peer.send(publishOf({makeEventBytes(who, "SMALL", ftb::proto::INFO, 6, "fine")}));
  {
    auto n = good.sub->poll(good.raw_events, 5s);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), "the raw client's good event was not delivered");
    BOOST_REQUIRE((*n)->kind == ftb::Notification::Kind::kEvent);
    BOOST_CHECK_EQUAL((*n)->event.payload, "fine");
    BOOST_CHECK_EQUAL((*n)->event.id.seq, 6u);
    // The kernel's view of the sender, not the pid the raw Hello claimed.
    BOOST_CHECK((*n)->event.sender.credentials_known);
    BOOST_CHECK_EQUAL((*n)->event.sender.pid, static_cast<uint32_t>(getpid()));
    auto more = good.sub->poll(good.raw_events, 200ms);
    BOOST_REQUIRE(more.ok());
    BOOST_CHECK_MESSAGE(!more->has_value(), "a refused event was delivered: "
                                                << (*more)->event.payload);
  }
  auto ack = peer.recvMatching(
      [](const Envelope& e) { return e.has_publish_ack() && e.publish_ack().acked_seq() == 6; }, 5s);
  BOOST_CHECK_MESSAGE(ack.has_value(), "no PublishAck for seq 6");

  const ftb::proto::Counters after = ftb::testing::queryStatus(agent.ipcEndpoint()).counters();
  // oversized, undeclared, wrong severity, foreign space, foreign origin.
  BOOST_CHECK_EQUAL(after.events_rejected() - before.events_rejected(), 5u);
  // Only the event that does not parse was a bad frame.
  BOOST_CHECK_EQUAL(after.bad_frames() - before.bad_frames(), 1u);
  good.roundTrip("end");
}

// VerifiedSender is set by the agent and "never trusted from a client".
BOOST_AUTO_TEST_CASE(a_client_cannot_forge_its_verified_sender) {
  AgentProcess agent;
  GoodPair good(agent);
  RawIdentity who;
  RawPeer peer(agent.tcpEndpoint());  // TCP: the agent knows no credentials
  auto hello = peer.call(makeHello(who, {{"SMALL", ftb::proto::INFO}}));
  BOOST_REQUIRE(hello.has_value() && hello->has_hello_reply());

  ftb::proto::Event forged;
  BOOST_REQUIRE(forged.ParseFromString(makeEventBytes(who, "SMALL", ftb::proto::INFO, 1, "forged")));
  forged.mutable_sender()->set_uid(4321);
  forged.mutable_sender()->set_pid(1);
  forged.mutable_sender()->set_agent("some-other-agent");
  forged.mutable_sender()->set_credentials_known(true);
  peer.send(publishOf({forged.SerializeAsString()}));

  // The agent refuses the event outright and says why.
  auto refusal = peer.recvMatching(
      [](const Envelope& e) { return e.has_error() && e.error().event_seq() == 1; }, 5s);
  BOOST_REQUIRE_MESSAGE(refusal.has_value(), "no Error for the forged event");
  BOOST_CHECK(refusal->error().code() == ftb::proto::Error::INVALID_ARGUMENT);
  BOOST_CHECK(refusal->error().message().find("sender") != std::string::npos);
  // Nothing forged reaches a subscriber; the next honest event does.
  peer.send(publishOf({makeEventBytes(who, "SMALL", ftb::proto::INFO, 2, "honest")}));
  auto n = good.sub->poll(good.raw_events, 5s);
  BOOST_REQUIRE(n.ok());
  BOOST_REQUIRE_MESSAGE(n->has_value(), "the honest event was not delivered");
  BOOST_CHECK_EQUAL((*n)->event.payload, "honest");
  const ftb::VerifiedSender& sender = (*n)->event.sender;
  BOOST_CHECK(!sender.credentials_known);  // TCP: no credentials
  BOOST_CHECK_EQUAL(sender.uid, 0u);
}
