// ZmqFrameSource against a real ZeroMQ peer on an inproc pair: no port, no
// file, no sleep (every read is of a message already sent).
#define BOOST_TEST_MODULE zmq_frame_source
#include <boost/test/unit_test.hpp>

#include <string>

#include "agent/transport/zmq_frame_source.h"
#include "client/transport/zmq_socket.h"
#include "tests/support/zmq_test_socket.h"

using namespace ftb;
using ftb::testing::openTestSocket;
using namespace ftb::agent;

namespace {

struct Pair {
  Pair() {
    BOOST_REQUIRE(router.bind("inproc://agent").ok());
    BOOST_REQUIRE(client.set(ZmqTextOption::kRoutingId, "client-1").ok());
    BOOST_REQUIRE(client.connect("inproc://agent").ok());
  }
  void send(std::string_view part, bool more = false) {
    BOOST_REQUIRE((client.send(part, more) == ZmqSent::kSent));
  }
  // Sent before the read: an inproc message is in the pipe once send returns.
  Receive next(InboundFrame& frame) { return source.tryReceive(frame); }

  ZmqContext context;
  ZmqSocket router = openTestSocket(context, ZmqType::kRouter);
  ZmqSocket client = openTestSocket(context, ZmqType::kDealer);
  ZmqFrameSource source{router};
};

}  // namespace

BOOST_AUTO_TEST_CASE(nothing_pending_is_empty_without_blocking) {
  Pair p;
  InboundFrame frame;
  BOOST_TEST((p.next(frame) == Receive::kEmpty));
}

BOOST_AUTO_TEST_CASE(a_message_comes_with_its_routing_id_and_body) {
  Pair p;
  p.send("first");
  p.send("second");
  InboundFrame frame;
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(frame.routing_id == "client-1");
  BOOST_TEST(frame.body == "first");
  BOOST_TEST(!frame.multipart);
  BOOST_TEST(frame.user_id == nullptr);  // no Curve on inproc
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(frame.body == "second");
  BOOST_TEST((p.next(frame) == Receive::kEmpty));
}

BOOST_AUTO_TEST_CASE(a_multipart_message_is_flagged_and_drained_whole) {
  Pair p;
  p.send("a", true);
  p.send("b", true);
  p.send("c");
  p.send("single");
  InboundFrame frame;
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(frame.multipart);
  BOOST_TEST(frame.body == "a");
  // The parts after the body are gone: the next message is the next one sent.
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(!frame.multipart);
  BOOST_TEST(frame.body == "single");
}
