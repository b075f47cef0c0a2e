// Two TreeBridges on loopback TCP, each with the agent state it feeds (a
// Router over a recording sink, a history, counters) and a ROUTER socket
// standing for its agent's: the second joins the first, an event published
// at the first reaches the second's subscriber, both say what changed in
// their tree, and a malformed tree message is counted, not followed.
#define BOOST_TEST_MODULE tree_bridge
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/tree_bridge/tree_bridge.h"
#include "client/event.h"
#include "client/wire/codec.h"
#include "tests/support/agent_core.h"
#include "tests/support/zmq_test_socket.h"

using namespace ftb;
using namespace ftb::agent;
using namespace std::chrono_literals;

namespace {

// One agent's worth of state around a bridge, on real time.
struct Side : testing::AgentCore {
  Side(ZmqContext& context, const std::string& name, std::vector<std::string> seeds)
      : AgentCore(&Clock::real()) {
    config.name = name;
    config.tree_authentication = "insecure-none";
    config.tree_seeds = std::move(seeds);
    config.tree_heartbeat_ms = 100;
    config.tree_timeout_ms = 2000;  // a loaded machine's stalls are no faults here
    config.tree_ping_ms = 0;        // no PING listener: liveness is not what this tests
    socket = testing::openTestSocket(context, ZmqType::kRouter);
    BOOST_REQUIRE(socket.bind("tcp://127.0.0.1:0").ok());
    endpoints = {socket.lastEndpoint()};
    auto started = TreeBridge::start(
        {config, sessions, router, history, metrics, counters, log, clock},
        [this](const std::string& event_name, proto::Severity, std::string, const TreeBridge::Tags& tags) {
          published.push_back(event_name);
          published_tags.push_back(tags);
        },
        {context, *poller, endpoints, nullptr, ++incarnations});
    BOOST_REQUIRE(started.ok());
    BOOST_REQUIRE(*started);
    bridge = std::move(started).value();
  }

  // A local subscriber of `filter` under routing id `id`; with `job` and
  // `rank`, a rank of that job.
  void subscribe(const std::string& id, const std::string& filter_text, const std::string& job = "",
                 std::optional<int32_t> rank = std::nullopt) {
    auto s = std::make_unique<ClientSession>(1000);
    s->routing_id = id;
    s->job_id = job;
    s->rank = rank;
    s->publisher_key = EventId{.host = config.name,
                               .pid = 77,
                               .process_start_ns = 1,
                               .client_instance = static_cast<uint32_t>(sessions.size())}
                           .publisherKey();
    Sender sender;
    sender.local = PeerCredentials{.uid = 0, .gid = 0, .pid = 77};
    s->principal = admission.principalOf(sender);
    ClientSession& added = sessions.add(std::move(s), sender);
    auto filter = Filter::parse(filter_text);
    BOOST_REQUIRE(filter.ok());
    added.subscriptions.insert_or_assign(1, Subscription{1, *filter});
    index.add(&added, 1, *filter);
    bridge->interestChanged();
  }

  // One turn of an agent's loop, as far as the tree is concerned.
  void turn() {
    poller->wait(0ms);
    ZmqMessage part;
    while (socket.receive(part)) {  // routing id, then the frame
      if (!part.more() || !socket.receive(part)) continue;
      proto::Envelope envelope;
      if (wire::decodeInto(envelope, part.bytes().data(), part.bytes().size()).ok() && envelope.has_tree()) {
        bridge->onMessage(envelope);
      }
    }
    bridge->drive(clock.steadyNow(), false);
    router.flush();
  }

  std::string state() const {
    proto::TreeInfo info;
    bridge->fillInfo(&info);
    return info.state();
  }
  bool saw(const std::string& event_name) const {
    return std::find(published.begin(), published.end(), event_name) != published.end();
  }

  static inline uint64_t incarnations = 0;
  ZmqSocket socket;  // the agent's ROUTER: tree messages arrive here
  std::vector<std::string> endpoints;
  std::vector<std::string> published;            // FTB.AGENT events the bridge asked for
  std::vector<TreeBridge::Tags> published_tags;  // and their tags
  std::unique_ptr<TreeBridge> bridge;
};

// Turns both sides until `done` holds (or a minute passes).
template <typename Done>
bool turnUntil(Side& a, Side& b, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    a.turn();
    b.turn();
    std::this_thread::sleep_for(1ms);  // a loop's sleep: the links' I/O threads work meanwhile
  }
  return true;
}

std::shared_ptr<RoutedEvent> event(const std::string& publisher_host, uint64_t seq) {
  auto routed = std::make_shared<RoutedEvent>();
  proto::Event& e = routed->event;
  e.set_event_space("FTB.TEST");
  e.set_event_name("E" + std::to_string(seq));
  e.set_severity(proto::INFO);
  e.mutable_id()->mutable_origin()->set_host(publisher_host);
  e.mutable_id()->mutable_origin()->set_pid(99);
  e.mutable_id()->set_seq(seq);
  routed->bytes = std::make_shared<const std::string>(e.SerializeAsString());
  routed->arrived = Clock::real().steadyNow();
  return routed;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_event_published_at_one_agent_reaches_a_subscriber_of_another) {
  ZmqContext context;
  Side a(context, "a", {});
  Side b(context, "b", a.endpoints);
  b.subscribe("sub", "event_space=FTB.TEST");
  BOOST_REQUIRE(turnUntil(a, b, [&] { return b.state() == "attached" && a.state() == "root"; }));
  BOOST_TEST(b.saw("FTB_AGENT_JOINED"));
  BOOST_REQUIRE(turnUntil(a, b, [&] { return a.saw("FTB_AGENT_CHILD_ATTACHED"); }));

  // Published until one arrives: b's interest reaches a in its own time.
  uint64_t seq = 0;
  const std::string key = EventId{.host = "a", .pid = 99}.publisherKey();
  BOOST_REQUIRE(turnUntil(a, b, [&] {
    a.bridge->publishLocal(event("a", ++seq), key);
    return !b.sink.sent["sub"].empty();
  }));
  auto deliver = wire::decode(b.sink.sent["sub"][0].data(), b.sink.sent["sub"][0].size());
  BOOST_REQUIRE(deliver.ok());
  BOOST_REQUIRE(deliver->has_deliver());
  BOOST_REQUIRE(deliver->deliver().deliveries_size() >= 1);
  proto::Event got;
  BOOST_REQUIRE(got.ParseFromString(deliver->deliver().deliveries(0).event()));
  BOOST_TEST(got.event_space() == "FTB.TEST");
  BOOST_TEST(got.id().seq() >= 1u);
  BOOST_TEST(got.id().seq() <= seq);
  BOOST_TEST(b.history.size() >= 1u);  // kept for replay at b too

  // a lists b as its child (waited for: a link dropped by a stall comes back).
  BOOST_TEST(turnUntil(a, b, [&] {
    proto::TreeInfo info;
    a.bridge->fillInfo(&info);
    return info.links_size() == 1 && info.links(0).node().name() == "b" && !info.links(0).is_parent();
  }));
}

BOOST_AUTO_TEST_CASE(a_lost_agent_is_announced_with_the_ranks_that_lived_there) {
  ZmqContext context;
  Side a(context, "a", {});
  auto b = std::make_unique<Side>(context, "b", a.endpoints);
  b->subscribe("rank3", "event_space=FTB.TEST", "J7", 3);
  b->subscribe("rank1", "event_space=FTB.TEST", "J7", 1);
  b->subscribe("tool", "event_space=FTB.TEST", "J8");
  // a hears who lives on b (ftbctl tree --json shows it per link).
  BOOST_REQUIRE(turnUntil(a, *b, [&] {
    proto::TreeInfo info;
    a.bridge->fillInfo(&info);
    return info.links_size() == 1 && info.links(0).clients() == 3u;
  }));
  proto::TreeInfo info;
  a.bridge->fillInfo(&info);
  BOOST_TEST(info.links(0).job_ranks() == "J7:1,3;J8:");

  // b's process ends without leaving the tree: its connections close.
  b.reset();
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!a.saw("FTB_NODE_LOST") && std::chrono::steady_clock::now() < deadline) {
    a.turn();
    std::this_thread::sleep_for(1ms);
  }
  BOOST_REQUIRE(a.saw("FTB_NODE_LOST"));
  BOOST_TEST(a.saw("FTB_AGENT_CHILD_LOST"));  // the link's own event stays
  const auto it = std::find(a.published.begin(), a.published.end(), "FTB_NODE_LOST");
  const TreeBridge::Tags& tags = a.published_tags[it - a.published.begin()];
  BOOST_TEST(tags.at("node") == "b");
  BOOST_TEST(tags.at("link") == "child");
  BOOST_TEST(tags.at("clients") == "3");
  BOOST_TEST(tags.at("jobs") == "J7,J8");
  BOOST_TEST(tags.at("job_ranks") == "J7:1,3;J8:");
  BOOST_TEST(tags.at("announcer") == "a");
  BOOST_TEST(tags.at("corr") == "node-b-" + tags.at("incarnation"));
  BOOST_TEST((tags.at("by") == "connection-closed" || tags.at("by") == "silence"));
  BOOST_TEST(std::count(a.published.begin(), a.published.end(), "FTB_NODE_LOST") == 1);
}

BOOST_AUTO_TEST_CASE(a_malformed_tree_message_is_counted_and_dropped) {
  ZmqContext context;
  Side a(context, "a", {});
  proto::Envelope envelope;
  envelope.mutable_tree();  // no sender, no body
  a.bridge->onMessage(envelope);
  BOOST_TEST(a.counters.bad_frames() == 1u);
  BOOST_TEST(a.state() == "root");  // a lone agent is its own root
}

BOOST_AUTO_TEST_CASE(without_a_tcp_endpoint_or_a_cluster_key_there_is_no_bridge) {
  ZmqContext context;
  testing::AgentCore core(&Clock::real());  // its config: tree-authentication curve, no key file
  AgentConfig& config = core.config;
  Poller& poller = *core.poller;
  const TreeBridge::Parts parts{config, core.sessions, core.router, core.history, core.metrics,
                                core.counters, core.log, core.clock};
  auto none = [](const std::string&, proto::Severity, std::string, const TreeBridge::Tags&) {};
  const std::vector<std::string> tcp = {"tcp://127.0.0.1:10809"}, ipc_only = {"ipc:///tmp/x.sock"};
  auto keyless = TreeBridge::start(parts, none, {context, poller, tcp, nullptr, 1});
  BOOST_REQUIRE(keyless.ok());
  BOOST_TEST(!*keyless);
  auto local_only = TreeBridge::start(parts, none, {context, poller, ipc_only, nullptr, 1});
  BOOST_REQUIRE(local_only.ok());
  BOOST_TEST(!*local_only);
  config.tree_seeds = {"tcp://127.0.0.1:10810"};
  auto seeds_without_tcp = TreeBridge::start(parts, none, {context, poller, ipc_only, nullptr, 1});
  BOOST_REQUIRE(!seeds_without_tcp.ok());
  BOOST_TEST(seeds_without_tcp.status().message().find("--tcp-endpoint") != std::string::npos);
}
