// ZmqFrameSink against a real ZeroMQ peer on an inproc pair: no port, no
// file, no sleep (every wait is for a frame already sent).
#define BOOST_TEST_MODULE zmq_frame_sink
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "agent/transport/zmq_frame_sink.h"
#include "client/transport/zmq_socket.h"
#include "tests/support/zmq_test_socket.h"

using namespace ftb;
using ftb::testing::openTestSocket;
using ftb::agent::RateLimitedLog;
using ftb::agent::ZmqFrameSink;

namespace {

// The agent's ROUTER (router_mandatory, as Agent::bind sets it) and one
// client, known to the ROUTER once its first frame has been read.
struct Pair {
  explicit Pair(int hwm = 1000) {
    BOOST_REQUIRE(router.set(ZmqOption::kRouterMandatory, 1).ok());
    BOOST_REQUIRE(router.set(ZmqOption::kSendHwm, hwm).ok());
    BOOST_REQUIRE(router.bind("inproc://agent").ok());
    BOOST_REQUIRE(client.set(ZmqTextOption::kRoutingId, "client-1").ok());
    BOOST_REQUIRE(client.set(ZmqOption::kReceiveHwm, hwm).ok());
    BOOST_REQUIRE(client.connect("inproc://agent").ok());
    BOOST_REQUIRE((client.send("hello") == ZmqSent::kSent));
    ZmqMessage id;
    ZmqMessage body;
    BOOST_REQUIRE(router.receive(id, /*wait=*/true));
    BOOST_REQUIRE(router.receive(body, /*wait=*/true));
    BOOST_REQUIRE(id.bytes() == "client-1");
  }

  ZmqContext context;
  ZmqSocket router = openTestSocket(context, ZmqType::kRouter);
  ZmqSocket client = openTestSocket(context, ZmqType::kDealer);
  RateLimitedLog log;
  std::vector<std::string> unreachable;
  ZmqFrameSink sink{router, log, [this](const std::string& id) { unreachable.push_back(id); }};
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_frame_reaches_the_client_with_that_routing_id) {
  Pair p;
  BOOST_TEST(p.sink.trySend("client-1", "frame one"));
  ZmqMessage got;
  BOOST_REQUIRE(p.client.receive(got));
  BOOST_TEST(got.bytes() == "frame one");
  BOOST_TEST(!got.more());
  BOOST_TEST(p.unreachable.empty());
}

BOOST_AUTO_TEST_CASE(an_unknown_peer_is_reported_unreachable_and_counts_as_sent) {
  Pair p;
  BOOST_TEST(p.sink.trySend("gone", "frame"));
  BOOST_TEST(p.unreachable == std::vector<std::string>{"gone"});
  // The socket is still usable for the peers it knows.
  BOOST_TEST(p.sink.trySend("client-1", "after"));
  ZmqMessage got;
  BOOST_REQUIRE(p.client.receive(got));
  BOOST_TEST(got.bytes() == "after");
}

BOOST_AUTO_TEST_CASE(a_full_pipe_is_refused_without_blocking_and_is_not_unreachable) {
  Pair p(2);
  int sent = 0;
  while (sent < 10000 && p.sink.trySend("client-1", "x")) ++sent;
  BOOST_TEST(sent < 10000);  // refused once the pipe held what the high-water marks allow
  BOOST_TEST(sent >= 1);
  BOOST_TEST(p.unreachable.empty());
  // Reading makes room again; the frames that were accepted arrive whole.
  ZmqMessage got;
  BOOST_REQUIRE(p.client.receive(got));
  BOOST_TEST(got.bytes() == "x");
}
