// A publisher's events are never dropped as duplicates of a forgery: a client
// of another agent that claims the publisher's origin over TCP (which no
// credential binds to a process) is known to the tree by a key scoped to the
// agent it attached to (agent/security/origin_check.h, treeKeyOf), so the real events,
// with the same sequence numbers, all still arrive.
#define BOOST_TEST_MODULE forged_origin
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/integration/tree/stream_check.h"
#include "tests/integration/tree/tree_cluster.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::Recorder;
using ftb::testing::TreeCluster;

namespace {

constexpr char kSpace[] = "FTB.FORGE.PUB";
constexpr uint64_t kRealEvents = 200;

}  // namespace

BOOST_AUTO_TEST_CASE(a_remote_claim_of_a_publishers_origin_drops_none_of_its_real_events) {
  TreeCluster cluster({.agents = 2, .seeds = 1, .fan_out = 4});
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  // The subscriber is on the forger's agent, where the forged sequence numbers
  // arrive first.
  Recorder subscriber(cluster.agent(1).ipcEndpoint(), std::string("event_space=") + kSpace, "sub");
  BOOST_TEST_REQUIRE(ftb::testing::awaitRoutes({cluster.agent(0).ipcEndpoint()}, kSpace, {&subscriber}));

  auto real = ftb::testing::connectOrFail(cluster.agent(0).ipcEndpoint(), kSpace, "real");
  BOOST_REQUIRE(real->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  auto first = real->publish("NOTE", "real 1");
  BOOST_REQUIRE(first.ok());
  BOOST_REQUIRE(real->flush(5s).ok());
  BOOST_REQUIRE(ftb::testing::waitFor([&] {
    auto p = subscriber.payloads();
    return std::find(p.begin(), p.end(), "real 1") != p.end();
  }));

  // The forger: the real client's origin (ftbctl clients shows it), over TCP
  // to the other agent, publishing the sequence numbers the real one will use.
  ftb::testing::RawIdentity forged{.client_name = "real", .event_space = kSpace,
                                   .host = first->host, .pid = first->pid,
                                   .process_start_ns = first->process_start_ns,
                                   .client_instance = first->client_instance};
  ftb::testing::RawPeer forger(cluster.agent(1).tcpEndpoint());
  auto hello = forger.call(ftb::testing::makeHello(forged, {{"NOTE", ftb::proto::INFO}}));
  BOOST_REQUIRE(hello && hello->has_hello_reply());
  ftb::proto::Envelope publish;
  for (uint64_t seq = first->seq + 1; seq <= kRealEvents + 10; ++seq) {
    publish.mutable_publish()->add_events(
        ftb::testing::makeEventBytes(forged, "NOTE", ftb::proto::INFO, seq, "forged"));
  }
  forger.send(publish);
  BOOST_REQUIRE(ftb::testing::waitFor([&] {
    auto p = subscriber.payloads();
    return std::find(p.begin(), p.end(), "forged") != p.end();
  }));

  for (uint64_t n = 2; n <= kRealEvents; ++n) {
    BOOST_REQUIRE(real->publish("NOTE", "real " + std::to_string(n)).ok());
  }
  BOOST_REQUIRE(real->flush(10s).ok());
  auto realOnes = [&] {
    auto p = subscriber.payloads();
    return std::count_if(p.begin(), p.end(), [](const std::string& s) { return s.starts_with("real "); });
  };
  ftb::testing::waitFor([&] { return realOnes() >= static_cast<long>(kRealEvents); });
  BOOST_TEST(realOnes() == static_cast<long>(kRealEvents));
  // ...in the order published.
  std::vector<std::string> in_order;
  for (const auto& p : subscriber.payloads()) {
    if (p.starts_with("real ")) in_order.push_back(p);
  }
  for (uint64_t n = 1; n <= in_order.size(); ++n) {
    BOOST_TEST(in_order[n - 1] == "real " + std::to_string(n));
    if (in_order[n - 1] != "real " + std::to_string(n)) break;
  }
}
