// ZmqFrameSink against a real ZeroMQ peer on an inproc pair: no port, no
// file, no sleep (every wait is for a frame already sent).
#define BOOST_TEST_MODULE zmq_frame_sink
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <zmq.hpp>

#include "agent/zmq_frame_sink.h"

using ftb::agent::RateLimitedLog;
using ftb::agent::ZmqFrameSink;

namespace {

// The agent's ROUTER (router_mandatory, as Agent::bind sets it) and one
// client, known to the ROUTER once its first frame has been read.
struct Pair {
  explicit Pair(int hwm = 1000) {
    router.set(zmq::sockopt::router_mandatory, 1);
    router.set(zmq::sockopt::sndhwm, hwm);
    router.set(zmq::sockopt::linger, 0);
    router.bind("inproc://agent");
    client.set(zmq::sockopt::routing_id, "client-1");
    client.set(zmq::sockopt::rcvhwm, hwm);
    client.set(zmq::sockopt::linger, 0);
    client.connect("inproc://agent");
    BOOST_REQUIRE(client.send(zmq::str_buffer("hello")));
    zmq::message_t id;
    zmq::message_t body;
    BOOST_REQUIRE(router.recv(id));
    BOOST_REQUIRE(router.recv(body));
    BOOST_REQUIRE(id.to_string() == "client-1");
  }

  zmq::context_t context{0};
  zmq::socket_t router{context, zmq::socket_type::router};
  zmq::socket_t client{context, zmq::socket_type::dealer};
  RateLimitedLog log;
  std::vector<std::string> unreachable;
  ZmqFrameSink sink{router, log, [this](const std::string& id) { unreachable.push_back(id); }};
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_frame_reaches_the_client_with_that_routing_id) {
  Pair p;
  BOOST_TEST(p.sink.trySend("client-1", "frame one"));
  zmq::message_t got;
  BOOST_REQUIRE(p.client.recv(got, zmq::recv_flags::dontwait));
  BOOST_TEST(got.to_string() == "frame one");
  BOOST_TEST(!got.more());
  BOOST_TEST(p.unreachable.empty());
}

BOOST_AUTO_TEST_CASE(an_unknown_peer_is_reported_unreachable_and_counts_as_sent) {
  Pair p;
  BOOST_TEST(p.sink.trySend("gone", "frame"));
  BOOST_TEST(p.unreachable == std::vector<std::string>{"gone"});
  // The socket is still usable for the peers it knows.
  BOOST_TEST(p.sink.trySend("client-1", "after"));
  zmq::message_t got;
  BOOST_REQUIRE(p.client.recv(got, zmq::recv_flags::dontwait));
  BOOST_TEST(got.to_string() == "after");
}

BOOST_AUTO_TEST_CASE(a_full_pipe_is_refused_without_blocking_and_is_not_unreachable) {
  Pair p(2);
  int sent = 0;
  while (sent < 10000 && p.sink.trySend("client-1", "x")) ++sent;
  BOOST_TEST(sent < 10000);  // refused once the pipe held what the high-water marks allow
  BOOST_TEST(sent >= 1);
  BOOST_TEST(p.unreachable.empty());
  // Reading makes room again; the frames that were accepted arrive whole.
  zmq::message_t got;
  BOOST_REQUIRE(p.client.recv(got, zmq::recv_flags::dontwait));
  BOOST_TEST(got.to_string() == "x");
}
