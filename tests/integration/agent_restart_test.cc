// The agent is killed (SIGKILL) under a publisher and its subscribers and
// started again on the same endpoints. The SDK clients must reconnect by
// themselves, re-establish their subscriptions, re-send what the dead agent had
// not acknowledged, and every subscriber must end with every event published
// while the agent was down or after it came back: once each, in order. Events
// in flight at the instant of the kill may have been delivered by the old agent;
// they too must never arrive twice.
#define BOOST_TEST_MODULE agent_restart
#include <boost/test/unit_test.hpp>

#include <set>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::findClient;
using ftb::testing::waitFor;

namespace {

constexpr int kBefore = 100;    // delivered before the kill
constexpr int kInFlight = 200;  // published right before the kill
constexpr int kWhileDown = 200;
constexpr int kAfter = 200;
constexpr int kTotal = kBefore + kInFlight + kWhileDown + kAfter;
constexpr char kFilter[] = "event_space=FTB.RESTART.PUB";

std::unique_ptr<ftb::Client> connect(const std::string& endpoint, std::string space,
                                     std::string name) {
  auto c = ftb::Client::connect({.event_space = std::move(space),
                                 .client_name = std::move(name),
                                 .agent_endpoint = endpoint,
                                 .request_timeout = 2000ms});
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
  return std::move(c).value();
}

void publishRange(ftb::Client& pub, int from, int to) {
  for (int i = from; i < to; ++i) {
    auto id = pub.publish("TICK", std::to_string(i));
    BOOST_REQUIRE_MESSAGE(id.ok(), "publish " << i << ": " << id.status().toString());
  }
}

// Polls `id` until the event with payload `last` arrived (or 20 s passed
// without any notification); returns the payload indices in arrival order.
std::vector<int> receiveUntil(ftb::Client& sub, ftb::SubscriptionId id, int last,
                              const std::string& what) {
  std::vector<int> got;
  while (got.empty() || got.back() != last) {
    auto n = sub.poll(id, 20s);
    BOOST_REQUIRE(n.ok());
    if (!n->has_value()) {
      BOOST_ERROR(what << ": no more events after " << got.size() << "; waiting for " << last);
      break;
    }
    BOOST_REQUIRE_MESSAGE((*n)->kind == ftb::Notification::Kind::kEvent,
                          what << ": told it missed " << (*n)->missed);
    got.push_back(std::stoi((*n)->event.payload));
  }
  return got;
}

// Strictly increasing (no duplicates, no reordering), and every index in
// [must_from, must_to) present.
void checkStream(const std::vector<int>& got, int must_from, int must_to, const std::string& what) {
  for (std::size_t i = 1; i < got.size(); ++i) {
    BOOST_REQUIRE_MESSAGE(got[i] > got[i - 1], what << ": event " << got[i] << " arrived after "
                                                   << got[i - 1] << " (duplicate or reordered)");
  }
  const std::set<int> have(got.begin(), got.end());
  std::vector<int> lost;
  for (int i = must_from; i < must_to; ++i) {
    if (have.count(i) == 0) lost.push_back(i);
  }
  BOOST_CHECK_MESSAGE(lost.empty(), what << ": " << lost.size() << " events of [" << must_from
                                         << ", " << must_to << ") never arrived, first "
                                         << (lost.empty() ? -1 : lost.front()) << ", last "
                                         << (lost.empty() ? -1 : lost.back()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(clients_ride_through_an_agent_restart) {
  AgentProcess agent;
  // Three subscribers (IPC and TCP) and one publisher.
  struct Sub {
    std::string name;
    std::unique_ptr<ftb::Client> client;
    ftb::SubscriptionId id = 0;
  };
  std::vector<Sub> subs;
  for (int s = 0; s < 3; ++s) {
    Sub sub{.name = "sub-" + std::to_string(s)};
    sub.client = connect(s == 1 ? agent.tcpEndpoint() : agent.localEndpoint(), "FTB.RESTART.SUB",
                         sub.name);
    auto id = sub.client->subscribe({.filter = kFilter, .polling = true});
    BOOST_REQUIRE(id.ok());
    sub.id = *id;
    subs.push_back(std::move(sub));
  }
  auto pub = connect(agent.localEndpoint(), "FTB.RESTART.PUB", "pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());

  publishRange(*pub, 0, kBefore);
  BOOST_REQUIRE(pub->flush(10s).ok());
  std::vector<std::vector<int>> got(subs.size());
  for (std::size_t s = 0; s < subs.size(); ++s) {
    got[s] = receiveUntil(*subs[s].client, subs[s].id, kBefore - 1, subs[s].name);
    BOOST_REQUIRE_EQUAL(got[s].size(), static_cast<std::size_t>(kBefore));
  }

  // Events in flight at the kill.
  publishRange(*pub, kBefore, kBefore + kInFlight);
  agent.kill();

  // Every client notices, and nothing it is asked to do blocks.
  BOOST_REQUIRE_MESSAGE(waitFor([&] {
                          bool any = pub->stats().connected;
                          for (auto& s : subs) any |= s.client->stats().connected;
                          return !any;
                        }),
                        "the clients did not notice that the agent died");
  publishRange(*pub, kBefore + kInFlight, kBefore + kInFlight + kWhileDown);
  // A subscription made while the agent is away is recorded and set up later.
  auto late = subs[0].client->subscribe({.filter = "event_name=TICK", .polling = true});
  BOOST_REQUIRE_MESSAGE(late.ok(), late.status().toString());

  agent.restart();
  BOOST_REQUIRE_MESSAGE(waitFor(
                            [&] {
                              bool all = pub->stats().connected && pub->stats().reconnects >= 1;
                              for (auto& s : subs) {
                                all &= s.client->stats().connected &&
                                       s.client->stats().reconnects >= 1;
                              }
                              return all;
                            },
                            30s),
                        "the clients did not reconnect to the new agent");
  // The new agent knows every subscription again.
  BOOST_REQUIRE_MESSAGE(waitFor(
                            [&] {
                              auto clients = ftb::testing::queryClients(agent.ipcEndpoint());
                              for (std::size_t s = 0; s < subs.size(); ++s) {
                                auto* c = findClient(clients, subs[s].name);
                                const int want = s == 0 ? 2 : 1;
                                if (c == nullptr || c->subscriptions_size() != want) return false;
                              }
                              return true;
                            },
                            20s),
                        "the subscriptions were not re-established");

  publishRange(*pub, kBefore + kInFlight + kWhileDown, kTotal);
  ftb::Status flushed = pub->flush(20s);
  BOOST_REQUIRE_MESSAGE(flushed.ok(), flushed.toString());
  BOOST_CHECK_EQUAL(pub->stats().acked, static_cast<uint64_t>(kTotal));

  // For diagnosis: what the new agent accepted (its history holds every event it routed).
  {
    ftb::testing::RawPeer control(agent.ipcEndpoint());
    ftb::proto::Envelope query;
    query.mutable_history_query()->set_filter(kFilter);
    auto history = control.call(query);
    BOOST_REQUIRE(history.has_value() && history->has_history_reply());
    int first = -1;
    if (history->history_reply().events_size() > 0) {
      ftb::proto::Event e;
      BOOST_REQUIRE(e.ParseFromString(history->history_reply().events(0)));
      first = std::stoi(e.payload());
    }
    BOOST_TEST_MESSAGE("the new agent routed " << history->history_reply().events_size()
                                               << " events, the first being " << first);
  }

  for (std::size_t s = 0; s < subs.size(); ++s) {
    std::vector<int> rest = receiveUntil(*subs[s].client, subs[s].id, kTotal - 1, subs[s].name);
    got[s].insert(got[s].end(), rest.begin(), rest.end());
    const ftb::ClientStats stats = subs[s].client->stats();
    BOOST_TEST_MESSAGE(subs[s].name << ": " << got[s].size() << " events, "
                                    << stats.duplicates_suppressed << " duplicates suppressed, "
                                    << stats.reconnects << " reconnects");
    // All of before, at most once each of in-flight, all of while-down and after.
    checkStream(got[s], 0, kBefore, subs[s].name + " (before the kill)");
    checkStream(got[s], kBefore + kInFlight, kTotal, subs[s].name + " (while down and after)");
  }
  // The subscription made while the agent was down sees at least what was published after.
  std::vector<int> late_got = receiveUntil(*subs[0].client, *late, kTotal - 1, "late subscription");
  checkStream(late_got, kBefore + kInFlight + kWhileDown, kTotal, "late subscription");

  const ftb::proto::StatusReply status = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status.clients(), 4u);
  BOOST_CHECK_EQUAL(status.subscriptions(), 4u);
}
