// The ZeroMQ wrapper (client/transport/zmq_socket.h) against libzmq itself: inproc
// pairs, and loopback TCP where connections must come and go. Waits are
// zmqPoll on the socket concerned, up to a deadline; no sleeps.
#define BOOST_TEST_MODULE zmq_socket
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <optional>
#include <string>

#include "client/transport/zmq_socket.h"
#include "tests/support/zmq_test_socket.h"

using namespace ftb;
using ftb::testing::openTestSocket;
using namespace std::chrono_literals;

namespace {

// The next event of `monitor` that is not kOther, waiting up to 5 s.
std::optional<ZmqMonitorEvent> awaitEvent(ZmqMonitor& monitor) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    while (std::optional<ZmqMonitorEvent> event = monitor.next()) {
      if (event->kind != ZmqLinkEvent::kOther) return event;
    }
    std::array<ZmqPollItem, 1> item{{{.socket = &monitor.socket()}}};
    (void)zmqPoll(item, 100ms);
  }
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(parts_arrive_in_order_with_their_more_flags) {
  ZmqContext context;
  ZmqSocket server = openTestSocket(context, ZmqType::kPair);
  ZmqSocket client = openTestSocket(context, ZmqType::kPair);
  BOOST_REQUIRE(server.bind("inproc://pair").ok());
  BOOST_REQUIRE(client.connect("inproc://pair").ok());
  BOOST_TEST((client.send("head", /*more=*/true) == ZmqSent::kSent));
  BOOST_TEST((client.send("tail") == ZmqSent::kSent));
  ZmqMessage part;
  BOOST_REQUIRE(server.receive(part));
  BOOST_TEST(part.bytes() == "head");
  BOOST_TEST(part.more());
  BOOST_REQUIRE(server.receive(part));
  BOOST_TEST(part.bytes() == "tail");
  BOOST_TEST(!part.more());
  BOOST_TEST(!server.receive(part));  // nothing pending: no wait
}

BOOST_AUTO_TEST_CASE(a_router_names_an_unknown_peer_and_a_dealer_without_one_would_block) {
  ZmqContext context;
  ZmqSocket router = openTestSocket(context, ZmqType::kRouter);
  BOOST_REQUIRE(router.set(ZmqOption::kRouterMandatory, 1).ok());
  BOOST_REQUIRE(router.bind("inproc://router").ok());
  BOOST_TEST((router.send("nobody", /*more=*/true) == ZmqSent::kNoSuchPeer));
  ZmqSocket dealer = openTestSocket(context, ZmqType::kDealer);  // connected to nothing
  BOOST_TEST((dealer.send("frame") == ZmqSent::kWouldBlock));
}

BOOST_AUTO_TEST_CASE(options_and_endpoints_that_libzmq_refuses_are_a_status) {
  ZmqContext context;
  ZmqSocket socket = openTestSocket(context, ZmqType::kDealer);
  const Status bad = socket.bind("nonsense://x");
  BOOST_TEST(!bad.ok());
  BOOST_TEST(!bad.message().empty());
  BOOST_TEST(!socket.set(ZmqTextOption::kCurveServerKey, "short").ok());
  BOOST_TEST(socket.set({{ZmqOption::kSendHwm, 10}, {ZmqOption::kReceiveHwm, 10}}).ok());
  BOOST_TEST(!socket.set({{ZmqOption::kLinger, 0}, {ZmqOption::kHeartbeatInterval, -1}}).ok());
  BOOST_REQUIRE(socket.bind("tcp://127.0.0.1:0").ok());
  const std::string where = socket.lastEndpoint();
  BOOST_TEST(where.rfind("tcp://127.0.0.1:", 0) == 0u);
  BOOST_TEST(where != "tcp://127.0.0.1:0", "the kernel's port: " << where);
}

BOOST_AUTO_TEST_CASE(a_monitor_reports_a_connection_and_its_end) {
  ZmqContext context;
  ZmqSocket server = openTestSocket(context, ZmqType::kRouter);
  BOOST_REQUIRE(server.bind("tcp://127.0.0.1:0").ok());
  ZmqSocket client = openTestSocket(context, ZmqType::kDealer);
  Result<ZmqMonitor> monitor =
      ZmqMonitor::watch(context, client, {ZmqLinkEvent::kConnected, ZmqLinkEvent::kDisconnected});
  BOOST_REQUIRE(monitor.ok());
  BOOST_REQUIRE(client.connect(server.lastEndpoint()).ok());
  BOOST_TEST((awaitEvent(*monitor).value_or(ZmqMonitorEvent{}).kind == ZmqLinkEvent::kConnected));
  server.close();
  BOOST_TEST((awaitEvent(*monitor).value_or(ZmqMonitorEvent{}).kind == ZmqLinkEvent::kDisconnected));
}

BOOST_AUTO_TEST_CASE(a_listeners_monitor_names_each_accepted_connections_descriptor_and_its_end) {
  ZmqContext context;
  ZmqSocket server = openTestSocket(context, ZmqType::kRouter);
  Result<ZmqMonitor> monitor =
      ZmqMonitor::watch(context, server, {ZmqLinkEvent::kAccepted, ZmqLinkEvent::kDisconnected});
  BOOST_REQUIRE(monitor.ok());
  BOOST_REQUIRE(server.bind("tcp://127.0.0.1:0").ok());
  ZmqSocket client = openTestSocket(context, ZmqType::kDealer);
  BOOST_REQUIRE(client.connect(server.lastEndpoint()).ok());
  const std::optional<ZmqMonitorEvent> accepted = awaitEvent(*monitor);
  BOOST_REQUIRE(accepted.has_value());
  BOOST_TEST((accepted->kind == ZmqLinkEvent::kAccepted));
  BOOST_TEST(accepted->endpoint == server.lastEndpoint());
  // The descriptor is the server's end of this connection: its peer is the client's end.
  sockaddr_in local{}, peer{};
  socklen_t length = sizeof local;
  BOOST_REQUIRE(getsockname(static_cast<int>(accepted->value), reinterpret_cast<sockaddr*>(&local),
                            &length) == 0);
  BOOST_TEST(":" + std::to_string(ntohs(local.sin_port)) ==
             server.lastEndpoint().substr(server.lastEndpoint().rfind(':')));
  length = sizeof peer;
  BOOST_TEST(getpeername(static_cast<int>(accepted->value), reinterpret_cast<sockaddr*>(&peer),
                         &length) == 0);
  client.close();
  const std::optional<ZmqMonitorEvent> ended = awaitEvent(*monitor);
  BOOST_REQUIRE(ended.has_value());
  BOOST_TEST((ended->kind == ZmqLinkEvent::kDisconnected));
  BOOST_TEST(ended->value == accepted->value);
  BOOST_TEST(ended->endpoint == server.lastEndpoint());
}

BOOST_AUTO_TEST_CASE(a_monitor_reports_that_nothing_listens) {
  // A port bound but not listening refuses connections, and stays ours while
  // the test runs (a closed ZeroMQ listener unbinds later, in libzmq's thread).
  const int holder = socket(AF_INET, SOCK_STREAM, 0);
  BOOST_REQUIRE(holder >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  BOOST_REQUIRE(bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  BOOST_REQUIRE(getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  ZmqContext context;
  ZmqSocket client = openTestSocket(context, ZmqType::kDealer);
  BOOST_REQUIRE(client.set(ZmqOption::kReconnectInterval, 50).ok());
  Result<ZmqMonitor> monitor = ZmqMonitor::watch(
      context, client, {ZmqLinkEvent::kConnected, ZmqLinkEvent::kConnectRetried});
  BOOST_REQUIRE(monitor.ok());
  BOOST_REQUIRE(client.connect(endpoint).ok());
  BOOST_TEST((awaitEvent(*monitor).value_or(ZmqMonitorEvent{}).kind == ZmqLinkEvent::kConnectRetried));
  close(holder);
}

BOOST_AUTO_TEST_CASE(poll_watches_plain_descriptors_and_sockets_together) {
  ZmqContext context;
  ZmqSocket server = openTestSocket(context, ZmqType::kPair);
  ZmqSocket client = openTestSocket(context, ZmqType::kPair);
  BOOST_REQUIRE(server.bind("inproc://poll").ok());
  BOOST_REQUIRE(client.connect("inproc://poll").ok());
  int fds[2];
  BOOST_REQUIRE(pipe(fds) == 0);
  std::array<ZmqPollItem, 2> items{{{.descriptor = fds[0]}, {.socket = &server}}};
  BOOST_REQUIRE(zmqPoll(items, 0ms));
  BOOST_TEST(!items[0].readable);
  BOOST_TEST(!items[1].readable);
  BOOST_REQUIRE(write(fds[1], "x", 1) == 1);
  BOOST_REQUIRE((client.send("frame") == ZmqSent::kSent));
  BOOST_REQUIRE(zmqPoll(items, 5000ms));
  BOOST_TEST(items[0].readable);
  BOOST_TEST(items[1].readable);
  BOOST_TEST(server.readable());
  close(fds[0]);
  close(fds[1]);
}

BOOST_AUTO_TEST_CASE(z85_and_curve_keys_round_trip) {
  const std::string raw = "0123456789abcdef0123456789abcdef";
  const std::string text = z85Encode(raw);
  BOOST_TEST(text.size() == 40u);
  BOOST_TEST((z85Decode(text) == raw));
  BOOST_TEST(!z85Decode("not z85!").has_value());
  BOOST_TEST(z85Encode("odd").empty());  // not a multiple of 4 bytes
  auto pair = zmqCurveKeyPair();
  BOOST_REQUIRE(pair.ok());
  auto derived = zmqCurvePublicKey(pair->second);
  BOOST_REQUIRE(derived.ok());
  BOOST_TEST(*derived == pair->first);
  BOOST_TEST(!zmqCurvePublicKey("too short").ok());
}
