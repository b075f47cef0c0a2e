// CurveEndpoint against real ZeroMQ peers on loopback TCP: a client with an
// authorized key gets through and is mapped to its user; one with another key
// is refused by the ZAP handler, and ftbctl status is told.
#define BOOST_TEST_MODULE curve_endpoint
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "agent/security/curve_endpoint.h"
#include "client/curve_keys.h"
#include "tests/support/agent_process.h"
#include "tests/support/zmq_test_socket.h"

using namespace ftb;
using namespace ftb::agent;
using namespace std::chrono_literals;

namespace {

struct Keys {
  Keys() {
    std::ofstream(dir.path() + "/authorized") << cluster.public_key << "\n"
                                              << client.public_key << " uid=4321\n";
    BOOST_REQUIRE(curve::writeKeyFiles(cluster, dir.path() + "/cluster").ok());
    config.curve_key_file = dir.path() + "/cluster.key";
    config.curve_authorized_keys = dir.path() + "/authorized";
  }
  testing::TempDir dir;
  curve::KeyPair cluster = curve::generateKeyPair().value();
  curve::KeyPair client = curve::generateKeyPair().value();
  AgentConfig config;
  ZmqContext context;
};

}  // namespace

BOOST_AUTO_TEST_CASE(without_a_key_file_curve_is_off) {
  ZmqContext context;
  auto curve = CurveEndpoint::start(AgentConfig{}, context);
  BOOST_REQUIRE(curve.ok());
  BOOST_TEST(!*curve);
}

BOOST_AUTO_TEST_CASE(a_missing_key_file_is_an_error_that_names_it) {
  ZmqContext context;
  AgentConfig config;
  config.curve_key_file = "/nonexistent/ftb-agent.key";
  auto curve = CurveEndpoint::start(config, context);
  BOOST_REQUIRE(!curve.ok());
  BOOST_TEST(curve.status().message().find("/nonexistent/ftb-agent.key") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(an_authorized_key_gets_through_and_another_is_refused, Keys) {
  auto started = CurveEndpoint::start(config, context);
  BOOST_REQUIRE(started.ok());
  BOOST_REQUIRE(*started);
  const CurveEndpoint& curve = **started;
  BOOST_TEST(curve.keys().public_key == cluster.public_key);
  BOOST_TEST(curve.keys().server_key == cluster.public_key);  // no --curve-server-key: its own
  BOOST_TEST(curve.uidOf(client.public_key).value_or(0) == 4321u);
  BOOST_TEST(!curve.uidOf(cluster.public_key).has_value());

  ZmqSocket router = testing::openTestSocket(context, ZmqType::kRouter);
  BOOST_REQUIRE(curve.secure(router).ok());
  BOOST_REQUIRE(router.bind("tcp://127.0.0.1:0").ok());
  BOOST_REQUIRE(router.set(ZmqOption::kReceiveTimeout, 60000).ok());

  ZmqSocket intruder = testing::openTestSocket(context, ZmqType::kDealer);
  const curve::KeyPair other = curve::generateKeyPair().value();
  BOOST_REQUIRE(intruder.setCurveClient(cluster.public_key, other.public_key, other.secret_key).ok());
  BOOST_REQUIRE(intruder.connect(router.lastEndpoint()).ok());
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (curve.refused() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);  // the handshake runs on ZeroMQ's threads
  }
  BOOST_REQUIRE(curve.refused() >= 1u);  // it retries: one refusal each time
  proto::StatusReply status;
  curve.addStatus(status);
  BOOST_TEST(status.counters().auth_refused() >= 1u);
  BOOST_TEST(status.last_auth_refusal().find(other.public_key) != std::string::npos);

  ZmqSocket member = testing::openTestSocket(context, ZmqType::kDealer);
  BOOST_REQUIRE(member.setCurveClient(cluster.public_key, client.public_key, client.secret_key).ok());
  BOOST_REQUIRE(member.connect(router.lastEndpoint()).ok());
  BOOST_REQUIRE(member.send("hello", false, /*wait=*/true) == ZmqSent::kSent);
  ZmqMessage part;
  BOOST_REQUIRE(router.receive(part, /*wait=*/true));  // the routing id
  BOOST_REQUIRE(router.receive(part, /*wait=*/true));
  BOOST_TEST(part.bytes() == "hello");
  BOOST_REQUIRE(part.property("User-Id") != nullptr);  // the key ZAP admitted
  BOOST_TEST(std::string(part.property("User-Id")) == client.public_key);
}
