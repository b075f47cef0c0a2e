// ZmqFrameSource against a real ZeroMQ peer on an inproc pair: no port, no
// file, no sleep (every read is of a message already sent).
#define BOOST_TEST_MODULE zmq_frame_source
#include <boost/test/unit_test.hpp>

#include <string>

#include <zmq.hpp>

#include "agent/zmq_frame_source.h"

using namespace ftb::agent;

namespace {

struct Pair {
  Pair() {
    router.set(zmq::sockopt::linger, 0);
    router.bind("inproc://agent");
    client.set(zmq::sockopt::routing_id, "client-1");
    client.set(zmq::sockopt::linger, 0);
    client.connect("inproc://agent");
  }
  // Sent before the read: an inproc message is in the pipe once send returns.
  Receive next(InboundFrame& frame) { return source.tryReceive(frame); }

  zmq::context_t context{0};
  zmq::socket_t router{context, zmq::socket_type::router};
  zmq::socket_t client{context, zmq::socket_type::dealer};
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
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("first")));
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("second")));
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
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("a"), zmq::send_flags::sndmore));
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("b"), zmq::send_flags::sndmore));
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("c")));
  BOOST_REQUIRE(p.client.send(zmq::str_buffer("single")));
  InboundFrame frame;
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(frame.multipart);
  BOOST_TEST(frame.body == "a");
  // The parts after the body are gone: the next message is the next one sent.
  BOOST_TEST_REQUIRE((p.next(frame) == Receive::kFrame));
  BOOST_TEST(!frame.multipart);
  BOOST_TEST(frame.body == "single");
}
