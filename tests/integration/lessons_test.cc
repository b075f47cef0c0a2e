// Failures of the original FTB that must not happen here: an agent stalled by a
// peer that sends nothing or reads nothing, an SDK that blocks or exits the host
// program when the agent is missing, dead or hung, event spaces of fewer than
// three parts, and bursts lost by a polling subscriber.
#define BOOST_TEST_MODULE lessons
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::Code;
using ftb::Notification;
using ftb::testing::AgentProcess;
using ftb::testing::RawPeer;
using ftb::testing::waitFor;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

std::unique_ptr<ftb::Client> connect(ftb::ClientOptions options) {
  auto c = ftb::Client::connect(std::move(options));
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
  return std::move(c).value();
}

milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
}

// What a loaded 2-core machine may add to a call's own bound (a thread that
// waits for a core). Far below what these tests guard against: blocking for
// good, or for the SDK's 5 s default timeouts.
constexpr milliseconds kLoadSlack{3000};

// Runs `call`, checks that it returned within `limit`, and returns its result.
template <typename F>
auto timed(const std::string& what, milliseconds limit, F&& call) {
  const auto start = Clock::now();
  auto result = call();
  const milliseconds took = since(start);
  BOOST_TEST_MESSAGE(what << " returned after " << took.count() << " ms");
  BOOST_CHECK_MESSAGE(took <= limit, what << " took " << took.count() << " ms (limit "
                                          << limit.count() << " ms)");
  return result;
}

int tcpPort(const std::string& endpoint) { return std::stoi(endpoint.substr(endpoint.rfind(':') + 1)); }

// A plain TCP connection to the agent's port (no ZeroMQ).
int rawTcpConnect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  BOOST_REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE_MESSAGE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0,
                        "cannot connect to 127.0.0.1:" << port);
  return fd;
}

// A loopback port with nothing listening on it.
int closedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  BOOST_REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

// Polls events first..last-1 of a run of `count`, checking each in turn.
void receiveInOrder(ftb::Client& sub, ftb::SubscriptionId id, int first, int last, int count,
                    const std::string& tag, milliseconds deadline) {
  for (int i = first; i < last; ++i) {
    auto n = sub.poll(id, deadline);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), tag << ": got " << i << " of " << count);
    BOOST_REQUIRE((*n)->kind == Notification::Kind::kEvent);
    BOOST_REQUIRE_EQUAL((*n)->event.payload, tag + std::to_string(i));
  }
}

// Publishes `count` events and checks the subscriber gets them all, in order.
// In rounds of at most kRound events: the subscriber's queue in the agent is as
// small as the deaf client's, and must never be what overflows here.
void pingPong(ftb::Client& pub, ftb::Client& sub, ftb::SubscriptionId id, int count,
              const std::string& tag, milliseconds deadline) {
  constexpr int kRound = 2048;
  const auto start = Clock::now();
  for (int first = 0; first < count; first += kRound) {
    const int last = std::min(count, first + kRound);
    for (int i = first; i < last; ++i) {
      auto r = pub.publish("PING", tag + std::to_string(i));
      BOOST_REQUIRE_MESSAGE(r.ok(), r.status().toString());
    }
    receiveInOrder(sub, id, first, last, count, tag, deadline);
  }
  BOOST_TEST_MESSAGE(tag << ": " << count << " events round-tripped in " << since(start).count()
                         << " ms");
  BOOST_CHECK_LE(since(start).count(), deadline.count());
}

}  // namespace

BOOST_AUTO_TEST_CASE(idle_tcp_peers_and_a_client_that_never_reads_do_not_stall_the_agent) {
  // A long client timeout: the non-reading peer must be harmless while it is still a client.
  // Small buffers, so that the flood below backs up behind it and overflows.
  AgentProcess agent({"--client-timeout-ms=60000", "--socket-hwm=16", "--client-queue-events=8192"});
  const int port = tcpPort(agent.tcpEndpoint());

  // Idle TCP peers: one silent, one stopping halfway through the ZMTP greeting.
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(rawTcpConnect(port));
  const char partial_greeting[] = {'\xff', 0, 0, 0, 0, 0, 0, 0, 1, '\x7f'};
  BOOST_REQUIRE(write(idle.back(), partial_greeting, sizeof(partial_greeting)) ==
                static_cast<ssize_t>(sizeof(partial_greeting)));

  // A registered client that subscribes to everything and never reads.
  // (Over IPC: loopback TCP buffers are large enough to swallow the whole flood.)
  RawPeer deaf(agent.ipcEndpoint(), /*rcvhwm=*/1);
  auto hello = deaf.call(ftb::testing::makeHello({.client_name = "deaf"}, {}));
  BOOST_REQUIRE(hello.has_value() && hello->has_hello_reply());
  ftb::proto::Envelope subscribe;
  subscribe.mutable_subscribe()->set_subscription_id(1);
  auto subscribed = deaf.call(subscribe);
  BOOST_REQUIRE(subscribed.has_value() && subscribed->has_subscribe_reply());

  // New clients still connect promptly, over TCP and IPC.
  auto pub = timed("connect over IPC", 2000ms + kLoadSlack, [&] {
    return connect({.event_space = "FTB.LESSON.PUB", .client_name = "pub",
                    .agent_endpoint = agent.localEndpoint(), .connect_timeout = 2000ms});
  });
  auto sub = timed("connect over TCP", 2000ms + kLoadSlack, [&] {
    return connect({.event_space = "FTB.LESSON.SUB", .client_name = "sub",
                    .agent_endpoint = agent.tcpEndpoint(), .connect_timeout = 2000ms});
  });
  BOOST_REQUIRE(pub->declare({{"PING", ftb::Severity::kInfo}}).ok());
  auto id = sub->subscribe({.filter = "event_name=PING", .polling = true});
  BOOST_REQUIRE(id.ok());

  // A stalled agent stalls for good: generous bounds still tell it.
  pingPong(*pub, *sub, *id, 1, "first-", 10000ms);
  // Enough to fill every buffer between the agent and the deaf client many times over.
  pingPong(*pub, *sub, *id, 50000, "flood-", 60000ms);
  BOOST_REQUIRE(pub->flush(20s).ok());
  pingPong(*pub, *sub, *id, 1, "after-", 10000ms);

  const ftb::proto::ClientsReply clients = ftb::testing::queryClients(agent.ipcEndpoint());
  bool deaf_listed = false;
  for (const auto& c : clients.clients()) {
    if (c.client_name() == "deaf") {
      deaf_listed = true;
      // The flood really backed up behind it.
      BOOST_CHECK_MESSAGE(c.events_dropped() > 0,
                          "the deaf client's queue never overflowed: the test proved nothing");
    }
  }
  BOOST_CHECK(deaf_listed);
  for (int fd : idle) close(fd);
}

BOOST_AUTO_TEST_CASE(connect_to_a_missing_agent_fails_within_connect_timeout) {
  ftb::testing::TempDir dir;
  const std::vector<std::string> endpoints = {
      "ipc://" + dir.path() + "/nobody-home.sock",
      "tcp://127.0.0.1:" + std::to_string(closedPort()),
  };
  for (const std::string& endpoint : endpoints) {
    auto c = timed("connect to " + endpoint, 300ms + kLoadSlack, [&] {
      return ftb::Client::connect({.event_space = "FTB.LESSON", .client_name = "lonely",
                                   .agent_endpoint = endpoint, .connect_timeout = 300ms});
    });
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK_MESSAGE(c.status().code() == Code::kUnavailable, c.status().toString());
    BOOST_CHECK_MESSAGE(c.status().message().find(endpoint) != std::string::npos,
                        "the error does not name the endpoint: " << c.status().toString());
  }
  // Input errors come back as errors too, at once.
  auto bad_endpoint = timed("connect to a malformed endpoint", 300ms + kLoadSlack, [] {
    return ftb::Client::connect({.event_space = "FTB.LESSON", .client_name = "x",
                                 .agent_endpoint = "bogus://nowhere", .connect_timeout = 300ms});
  });
  BOOST_CHECK(!bad_endpoint.ok() && bad_endpoint.status().code() == Code::kInvalidArgument);
  auto no_name = ftb::Client::connect({.event_space = "FTB.LESSON", .client_name = "",
                                       .agent_endpoint = endpoints[0], .connect_timeout = 300ms});
  BOOST_CHECK(!no_name.ok() && no_name.status().code() == Code::kInvalidArgument);
}

BOOST_AUTO_TEST_CASE(calls_on_a_client_whose_agent_died_return_promptly) {
  AgentProcess agent;
  auto client = connect({.event_space = "FTB.LESSON.ORPHAN", .client_name = "orphan",
                         .agent_endpoint = agent.localEndpoint(), .request_timeout = 1000ms,
                         .publish_buffer_events = 50});
  BOOST_REQUIRE(client->declare({{"PING", ftb::Severity::kInfo}}).ok());
  auto id = client->subscribe({.filter = "event_name=PING", .polling = true});
  BOOST_REQUIRE(id.ok());

  agent.kill();
  // At once, before the SDK may even have noticed, and again once it has.
  for (int round = 0; round < 2; ++round) {
    const std::string r = round == 0 ? "right after the kill: " : "once noticed: ";
    auto published = timed(r + "publish", kLoadSlack, [&] { return client->publish("PING", "x"); });
    BOOST_CHECK_MESSAGE(published.ok(), published.status().toString());  // buffered for later
    auto polled = timed(r + "poll(100ms)", 100ms + kLoadSlack, [&] { return client->poll(*id, 100ms); });
    BOOST_CHECK(polled.ok());
    // request_timeout (1000 ms) at most.
    auto sub = timed(r + "subscribe", 1000ms + kLoadSlack,
                     [&] { return client->subscribe({.filter = "severity>=error", .polling = true}); });
    BOOST_CHECK_MESSAGE(sub.ok(), sub.status().toString());
    if (sub.ok()) {
      timed(r + "unsubscribe", 1000ms + kLoadSlack, [&] { return client->unsubscribe(*sub); }).ok();
    }
    timed(r + "declare", 1000ms + kLoadSlack,
          [&] { return client->declare({{"PONG", ftb::Severity::kWarning}}); }).ok();
    ftb::Status flushed = timed(r + "flush(200ms)", 200ms + kLoadSlack, [&] { return client->flush(200ms); });
    BOOST_CHECK(flushed.code() == Code::kDeadlineExceeded);
    auto responses = timed(r + "request(200ms)", 200ms + kLoadSlack,
                           [&] { return client->request("PING", "anyone?", 200ms); });
    BOOST_CHECK(responses.ok() && responses->empty());
    if (round == 0) {
      BOOST_REQUIRE_MESSAGE(waitFor([&] { return !client->stats().connected; }),
                            "the client never noticed that its agent died");
    }
  }
  // The publish buffer fills up and says so instead of blocking.
  Code last = Code::kOk;
  milliseconds slowest{0};
  for (int i = 0; i < 100 && last == Code::kOk; ++i) {
    const auto start = Clock::now();
    last = client->publish("PING", "overflow").status().code();
    slowest = std::max(slowest, since(start));
  }
  BOOST_CHECK_LE(slowest.count(), kLoadSlack.count());
  BOOST_CHECK(last == Code::kResourceExhausted);
  ftb::Status bye = timed("disconnect(500ms)", 500ms + kLoadSlack, [&] { return client->disconnect(500ms); });
  BOOST_CHECK(bye.code() == Code::kDeadlineExceeded);
  timed("destruction", 500ms + kLoadSlack, [&] {
    client.reset();
    return 0;
  });
}

BOOST_AUTO_TEST_CASE(calls_on_a_client_whose_agent_hangs_return_promptly) {
  AgentProcess agent;
  auto client = connect({.event_space = "FTB.LESSON.HUNG", .client_name = "patient",
                         .agent_endpoint = agent.localEndpoint(), .request_timeout = 1000ms});
  BOOST_REQUIRE(client->declare({{"PING", ftb::Severity::kInfo}}).ok());
  auto id = client->subscribe({.filter = "event_name=PING", .polling = true});
  BOOST_REQUIRE(id.ok());

  BOOST_REQUIRE(kill(agent.pid(), SIGSTOP) == 0);  // alive, connected, silent
  auto published = timed("publish", kLoadSlack, [&] { return client->publish("PING", "x"); });
  BOOST_CHECK(published.ok());
  BOOST_CHECK(timed("poll(100ms)", 100ms + kLoadSlack, [&] { return client->poll(*id, 100ms); }).ok());
  auto sub = timed("subscribe", 1000ms + kLoadSlack,
                   [&] { return client->subscribe({.filter = "severity>=error", .polling = true}); });
  BOOST_CHECK_MESSAGE(sub.ok(), sub.status().toString());
  timed("declare", 1000ms + kLoadSlack, [&] { return client->declare({{"PONG", ftb::Severity::kWarning}}); }).ok();
  ftb::Status flushed = timed("flush(200ms)", 200ms + kLoadSlack, [&] { return client->flush(200ms); });
  BOOST_CHECK(flushed.code() == Code::kDeadlineExceeded);
  BOOST_REQUIRE(kill(agent.pid(), SIGCONT) == 0);

  // Once the agent runs again, everything goes through.
  BOOST_CHECK(client->flush(10s).ok());
  auto n = client->poll(*id, 5s);
  BOOST_REQUIRE(n.ok() && n->has_value());
  BOOST_CHECK_EQUAL((*n)->event.payload, "x");
}

BOOST_AUTO_TEST_CASE(event_spaces_with_fewer_than_three_parts) {
  AgentProcess agent;
  auto one = connect({.event_space = "FTB", .client_name = "one", .agent_endpoint = agent.localEndpoint()});
  auto two = connect({.event_space = "ftb.mpi", .client_name = "two", .agent_endpoint = agent.localEndpoint()});
  BOOST_REQUIRE(one->declare({{"E1", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE(two->declare({{"E2", ftb::Severity::kInfo}}).ok());

  auto watcher = connect({.event_space = "FTB.LESSON.WATCH", .client_name = "watcher",
                          .agent_endpoint = agent.localEndpoint()});
  struct Expect {
    std::string filter;
    std::vector<std::string> spaces;  // what it must receive, in order
    ftb::SubscriptionId id = 0;
  };
  std::vector<Expect> expects = {
      {"event_space=FTB", {"FTB"}},
      {"event_space=FTB.MPI", {"FTB.MPI"}},
      {"event_space=FTB.**", {"FTB", "FTB.MPI"}},
      {"event_space=FTB.*", {"FTB.MPI"}},
      {"event_space=**.MPI", {"FTB.MPI"}},
      {"event_space=ftb|ftb.mpi", {"FTB", "FTB.MPI"}},
  };
  for (auto& e : expects) {
    auto id = watcher->subscribe({.filter = e.filter, .polling = true});
    BOOST_REQUIRE_MESSAGE(id.ok(), e.filter << ": " << id.status().toString());
    e.id = *id;
  }
  // An end marker after both, in a space none of the filters above matches.
  auto end_pub = connect({.event_space = "END.MARK", .client_name = "end",
                          .agent_endpoint = agent.localEndpoint()});
  BOOST_REQUIRE(end_pub->declare({{"END", ftb::Severity::kInfo}}).ok());
  auto end_id = watcher->subscribe({.filter = "event_space=END.MARK", .polling = true});
  BOOST_REQUIRE(end_id.ok());

  BOOST_REQUIRE(one->publish("E1", "from FTB").ok());
  BOOST_REQUIRE(one->flush(5s).ok());
  BOOST_REQUIRE(two->publish("E2", "from FTB.MPI").ok());
  BOOST_REQUIRE(two->flush(5s).ok());
  BOOST_REQUIRE(end_pub->publish("END").ok());
  auto end = watcher->poll(*end_id, 5s);
  BOOST_REQUIRE(end.ok() && end->has_value());

  for (const auto& e : expects) {
    std::vector<std::string> got;
    while (true) {
      auto n = watcher->poll(e.id, 0ms);
      BOOST_REQUIRE(n.ok());
      if (!n->has_value()) break;
      got.push_back((*n)->event.event_space);
    }
    BOOST_CHECK_MESSAGE(got == e.spaces, e.filter << ": received " << got.size()
                                                  << " events, expected " << e.spaces.size());
  }

  // Malformed spaces and patterns are refused with an error naming them; nothing crashes.
  for (std::string bad : {"", ".", "FTB.", ".FTB", "FTB..MPI", "FTB MPI"}) {
    auto c = ftb::Client::connect({.event_space = bad, .client_name = "bad",
                                   .agent_endpoint = agent.localEndpoint(), .connect_timeout = 1000ms});
    BOOST_CHECK_MESSAGE(!c.ok() && c.status().code() == Code::kInvalidArgument,
                        "event space '" << bad << "': " << (c.ok() ? "accepted" : c.status().toString()));
  }
  for (std::string bad : {"event_space=FTB.", "event_space=.FTB", "event_space=FTB..MPI", "event_space="}) {
    auto s = watcher->subscribe({.filter = bad, .polling = true});
    BOOST_CHECK_MESSAGE(!s.ok() && s.status().code() == Code::kInvalidArgument,
                        "filter '" << bad << "': " << (s.ok() ? "accepted" : s.status().toString()));
  }
  // The agent is still fine.
  BOOST_CHECK_EQUAL(ftb::testing::queryStatus(agent.ipcEndpoint()).clients(), 4u);
}

BOOST_AUTO_TEST_CASE(polling_subscriber_with_the_default_queue_receives_a_100000_event_burst) {
  constexpr int kBurst = 100000;
  // The agent's queue for the subscriber as deep as the SDK's default one:
  // with the agent's default (65,536) the burst fits only if the
  // subscriber's SDK thread drains it while it arrives, which a loaded
  // machine decides. The SDK's default poll queue is what is tested.
  AgentProcess agent({"--client-queue-events=131072"});
  auto sub = connect({.event_space = "FTB.LESSON.SUB", .client_name = "sub",
                      .agent_endpoint = agent.localEndpoint()});
  auto id = sub->subscribe({.filter = "event_space=FTB.LESSON.BURST", .polling = true});
  BOOST_REQUIRE(id.ok());
  auto pub = connect({.event_space = "FTB.LESSON.BURST", .client_name = "burst",
                      .agent_endpoint = agent.localEndpoint()});
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());

  const auto start = Clock::now();
  for (int i = 0; i < kBurst; ++i) {
    auto r = pub->publish("TICK", std::to_string(i));
    BOOST_REQUIRE_MESSAGE(r.ok(), "publish " << i << ": " << r.status().toString());
  }
  BOOST_REQUIRE(pub->flush(30s).ok());
  BOOST_TEST_MESSAGE("burst of " << kBurst << " published and acknowledged in "
                                 << since(start).count() << " ms");

  int received = 0;
  uint64_t missed = 0;
  while (received < kBurst) {
    auto n = sub->poll(*id, 10s);
    BOOST_REQUIRE(n.ok());
    if (!n->has_value()) break;
    if ((*n)->kind == Notification::Kind::kMissed) {
      missed += (*n)->missed;
      continue;
    }
    BOOST_REQUIRE_EQUAL((*n)->event.payload, std::to_string(received));
    ++received;
  }
  BOOST_TEST_MESSAGE("received " << received << ", missed " << missed << " after "
                                 << since(start).count() << " ms");
  BOOST_CHECK_EQUAL(received, kBurst);
  BOOST_CHECK_EQUAL(missed, 0u);
  BOOST_CHECK_EQUAL(sub->stats().missed, 0u);
  BOOST_CHECK_EQUAL(ftb::testing::queryStatus(agent.ipcEndpoint()).counters().events_dropped(), 0u);
}
