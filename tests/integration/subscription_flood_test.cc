// A crowded agent still routes: 2,000 idle clients hold 10,000 subscriptions in
// namespaces of their own (the agent's subscription index must step past them),
// while one publisher/subscriber pair gets every event, once, in order.
#define BOOST_TEST_MODULE subscription_flood
#include <boost/test/unit_test.hpp>

#include <sys/resource.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "client/client.h"
#include "client/wire/codec.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::waitFor;

namespace {

constexpr int kIdleClients = 2'000;
constexpr int kSubscriptionsPerIdleClient = 5;
constexpr uint64_t kEvents = 2'000;

// Each idle client's socket costs this process and the agent a descriptor or two;
// the default soft limit (1,024) is too small for 2,000 of them.
void raiseDescriptorLimit() {
  rlimit limit{};
  BOOST_TEST_REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0);
  limit.rlim_cur = limit.rlim_max;
  BOOST_TEST_REQUIRE(setrlimit(RLIMIT_NOFILE, &limit) == 0);
  BOOST_TEST_REQUIRE(limit.rlim_cur >= rlim_t{3 * kIdleClients},
                     "RLIMIT_NOFILE hard limit " << limit.rlim_max << " is too small for this test");
}

// Raw DEALERs on one ZeroMQ context: cheaper than 2,000 SDK clients (no threads each).
// They say Hello and subscribe, then read nothing.
class IdleCrowd {
 public:
  explicit IdleCrowd(const std::string& endpoint) {
    context_.set(zmq::ctxopt::max_sockets, kIdleClients + 64);
    for (int c = 0; c < kIdleClients; ++c) {
      zmq::socket_t socket(context_, zmq::socket_type::dealer);
      socket.set(zmq::sockopt::linger, 0);
      socket.connect(endpoint);
      ftb::testing::RawIdentity who{.client_name = "idle-" + std::to_string(c),
                                    .event_space = "FTB.FLOOD.C" + std::to_string(c)};
      ftb::proto::Envelope hello = ftb::testing::makeHello(who, {});
      hello.set_request_id(1);
      socket.send(zmq::buffer(ftb::wire::encode(hello)), zmq::send_flags::none);
      for (int s = 1; s <= kSubscriptionsPerIdleClient; ++s) {
        ftb::proto::Envelope subscribe;
        subscribe.set_request_id(1 + s);
        subscribe.mutable_subscribe()->set_subscription_id(s);
        subscribe.mutable_subscribe()->set_filter("event_space=FTB.FLOOD.C" + std::to_string(c) +
                                                  ".S" + std::to_string(s));
        socket.send(zmq::buffer(ftb::wire::encode(subscribe)), zmq::send_flags::none);
      }
      sockets_.push_back(std::move(socket));
    }
  }

 private:
  zmq::context_t context_{1};
  std::vector<zmq::socket_t> sockets_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(pair_gets_every_event_in_order_past_ten_thousand_subscriptions) {
  raiseDescriptorLimit();
  // Idle raw clients send no heartbeats: the timeout must outlast the test.
  AgentProcess agent({"--client-timeout-ms=600000"});
  IdleCrowd crowd(agent.ipcEndpoint());
  const uint32_t crowd_subscriptions = kIdleClients * kSubscriptionsPerIdleClient;
  BOOST_TEST_REQUIRE(waitFor(
      [&] {
        const auto status = ftb::testing::queryStatus(agent.ipcEndpoint());
        return status.clients() >= kIdleClients && status.subscriptions() >= crowd_subscriptions;
      },
      45s));

  auto subscriber = connectOrFail(agent.ipcEndpoint(), "FTB.FLOOD.SINK", "flood-subscriber");
  std::mutex mu;
  std::vector<uint64_t> seqs;
  uint64_t missed = 0;
  auto id = subscriber->subscribe({.filter = "event_space=FTB.FLOOD.PAIR",
                                   .callback = [&](const ftb::Notification& n) {
                                     std::lock_guard lock(mu);
                                     if (n.kind == ftb::Notification::Kind::kEvent) {
                                       seqs.push_back(n.event.id.seq);
                                     } else {
                                       missed += n.missed;
                                     }
                                   }});
  BOOST_TEST_REQUIRE(id.ok(), id.status().toString());

  auto publisher = connectOrFail(agent.ipcEndpoint(), "FTB.FLOOD.PAIR", "flood-publisher");
  BOOST_TEST_REQUIRE(publisher->declare({{"FLOOD_TICK", ftb::Severity::kInfo}}).ok());
  uint64_t first_seq = 0;
  for (uint64_t i = 0; i < kEvents; ++i) {
    auto published = publisher->publish("FLOOD_TICK", std::to_string(i));
    if (!published.ok() && published.status().code() == ftb::Code::kResourceExhausted) {
      // The publish buffer is full: wait for the agent's acknowledgements.
      BOOST_TEST_REQUIRE(publisher->flush(30s).ok());
      published = publisher->publish("FLOOD_TICK", std::to_string(i));
    }
    BOOST_TEST_REQUIRE(published.ok(), published.status().toString());
    if (i == 0) first_seq = published->seq;
  }
  BOOST_TEST_REQUIRE(publisher->flush(30s).ok());
  BOOST_TEST_REQUIRE(waitFor(
      [&] {
        std::lock_guard lock(mu);
        return seqs.size() + missed >= kEvents;
      },
      30s));

  std::lock_guard lock(mu);
  BOOST_TEST(missed == 0u);
  BOOST_TEST_REQUIRE(seqs.size() == kEvents);
  for (uint64_t i = 0; i < kEvents; ++i) {
    BOOST_TEST_REQUIRE(seqs[i] == first_seq + i, "delivery " << i);
  }
  // The crowd is still there: nobody was dropped while the pair ran.
  BOOST_TEST(ftb::testing::queryStatus(agent.ipcEndpoint()).clients() >= uint32_t{kIdleClients + 2});
}
