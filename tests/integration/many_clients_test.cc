// Many publishers and subscribers on one real agent: every subscriber gets
// exactly the events its filter matches, once, in publish order per publisher,
// and a client with several subscriptions gets each event once per matching
// subscription.
#define BOOST_TEST_MODULE many_clients
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::Severity;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;

namespace {

constexpr int kPublishers = 20;
constexpr int kSubscribers = 20;
constexpr int kEventsPerPublisher = 60;
const char* const kSpaces[] = {"FTB.MPI.OPENMPI", "FTB.MPI.MPICH", "FTB.IB.MLX5", "FTB.IPMI.BMC",
                               "FTB.JL.SLURM"};
struct Declared {
  const char* name;
  Severity severity;
};
const Declared kEvents[] = {{"EV_INFO", Severity::kInfo},
                            {"EV_WARN", Severity::kWarning},
                            {"EV_ERROR", Severity::kError},
                            {"EV_FATAL", Severity::kFatal},
                            {"NODE_DOWN", Severity::kFatal}};
constexpr char kSentinelFilter[] = "event_space=CTL.SENTINEL";

// One published event as the test planned it.
struct Planned {
  int publisher;
  int index;
  std::string space;
  std::string name;
  Severity severity;
  std::string client_name;
};

Planned plan(int publisher, int index) {
  const Declared& d = kEvents[(publisher + index) % 5];
  return {publisher, index, kSpaces[publisher % 5], d.name, d.severity,
          "pub-" + std::to_string(publisher)};
}

bool startsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// A filter and, written independently of ftb::Filter, what it should match.
struct Case {
  std::string filter;
  std::function<bool(const Planned&)> matches;
};

std::vector<Case> subscriberCases() {
  using P = const Planned&;
  return {
      {"event_space=FTB.MPI.*", [](P p) { return startsWith(p.space, "FTB.MPI."); }},
      {"event_space=FTB.**", [](P) { return true; }},
      {"event_space=FTB.MPI.OPEN*", [](P p) { return p.space == "FTB.MPI.OPENMPI"; }},
      {"severity>=error", [](P p) { return p.severity >= Severity::kError; }},
      {"event_space=FTB.IB.*, severity>=warning",
       [](P p) { return p.space == "FTB.IB.MLX5" && p.severity >= Severity::kWarning; }},
      {"event_name=EV_FATAL", [](P p) { return p.name == "EV_FATAL"; }},
      {"event_name=ev_*, severity=info", [](P p) { return p.name == "EV_INFO"; }},
      {"event_space=FTB.IPMI.BMC|FTB.IB.MLX5",
       [](P p) { return p.space == "FTB.IPMI.BMC" || p.space == "FTB.IB.MLX5"; }},
      {"event_space=FTB.MPI.*, event_space!=FTB.MPI.MPICH",
       [](P p) { return p.space == "FTB.MPI.OPENMPI"; }},
      {"severity<=warning, event_space=FTB.JL.*",
       [](P p) { return p.space == "FTB.JL.SLURM" && p.severity <= Severity::kWarning; }},
      {"client_name=pub-3", [](P p) { return p.publisher == 3; }},
      {"event_name=NODE_*", [](P p) { return p.name == "NODE_DOWN"; }},
      {"event_space=FTB.ALL.SLURM", [](P p) { return p.space == "FTB.JL.SLURM"; }},
      {"severity!=info, event_space=ftb.**", [](P p) { return p.severity != Severity::kInfo; }},
      {"event_space=**.MLX5", [](P p) { return p.space == "FTB.IB.MLX5"; }},
      {"event_name=EV_ERROR|EV_WARN", [](P p) { return p.name == "EV_ERROR" || p.name == "EV_WARN"; }},
      {"event_space=FTB.MPI", [](P) { return false; }},  // no event is in exactly FTB.MPI
      {"event_space=FTB.*", [](P) { return true; }},
      {"severity=fatal, event_space=FTB.IPMI.*",
       [](P p) { return p.space == "FTB.IPMI.BMC" && p.severity == Severity::kFatal; }},
      {"client_name=pub-1*, severity>=warning",
       [](P p) {
         return (p.publisher == 1 || p.publisher >= 10) && p.severity >= Severity::kWarning;
       }},
  };
}

// Checks that `got` is exactly the events of the plan that `matches` selects:
// per publisher, each once and in publish order; the event fields as published.
void checkStream(const std::string& what, const std::vector<ftb::Event>& got,
                 const std::function<bool(const Planned&)>& matches) {
  std::map<int, std::vector<int>> expected, received;
  std::size_t expected_total = 0;
  for (int p = 0; p < kPublishers; ++p) {
    for (int i = 0; i < kEventsPerPublisher; ++i) {
      if (matches(plan(p, i))) {
        expected[p].push_back(i);
        ++expected_total;
      }
    }
  }
  for (const ftb::Event& e : got) {
    const auto colon = e.payload.find(':');
    BOOST_REQUIRE_MESSAGE(colon != std::string::npos, what << ": unexpected payload " << e.payload);
    const int p = std::stoi(e.payload.substr(0, colon));
    const int i = std::stoi(e.payload.substr(colon + 1));
    const Planned want = plan(p, i);
    BOOST_CHECK_MESSAGE(e.event_space == want.space && e.event_name == want.name &&
                            e.severity == want.severity && e.client_name == want.client_name,
                        what << ": event " << e.payload << " arrived as " << e.event_space << "/"
                             << e.event_name << " from " << e.client_name);
    received[p].push_back(i);
  }
  BOOST_CHECK_MESSAGE(got.size() == expected_total,
                      what << ": received " << got.size() << " events, expected " << expected_total);
  for (int p = 0; p < kPublishers; ++p) {
    BOOST_CHECK_MESSAGE(received[p] == expected[p],
                        what << ": events of pub-" << p << " differ (received "
                             << received[p].size() << ", expected " << expected[p].size()
                             << "; duplicates, gaps or reordering)");
  }
}

// Waits for the sentinel on `sentinel_sub`, then drains `sub` without waiting:
// the sentinel was published after every other event was acknowledged, and one
// client's deliveries arrive in the order the agent routed them.
std::vector<ftb::Event> drainAfterSentinel(ftb::Client& client, ftb::SubscriptionId sub,
                                           ftb::SubscriptionId sentinel_sub,
                                           const std::string& what) {
  auto sentinel = client.poll(sentinel_sub, 30s);
  BOOST_REQUIRE_MESSAGE(sentinel.ok() && sentinel->has_value(), what << ": no sentinel within 30 s");
  BOOST_REQUIRE_MESSAGE((*sentinel)->kind == ftb::Notification::Kind::kEvent,
                        what << ": sentinel subscription reported missed events");
  std::vector<ftb::Event> got;
  while (true) {
    auto n = client.poll(sub, 0ms);
    BOOST_REQUIRE(n.ok());
    if (!n->has_value()) break;
    BOOST_REQUIRE_MESSAGE((*n)->kind == ftb::Notification::Kind::kEvent,
                          what << ": missed " << (*n)->missed << " events");
    got.push_back((*n)->event);
  }
  return got;
}

}  // namespace

BOOST_AUTO_TEST_CASE(twenty_publishers_twenty_subscribers_varied_filters) {
  // Remote (TCP) publishers use the reserved namespaces too (FTB.JL, FTB.IPMI,
  // FTB.IB): this test is about routing, so the namespace policy lets everyone.
  ftb::testing::TempDir policy_dir;
  const std::string policy = policy_dir.path() + "/open.conf";
  std::ofstream(policy) << "publish * *\nsubscribe * *\n";
  AgentProcess agent({"--policy-file=" + policy});
  // Half of the clients come over TCP, half over IPC.
  auto endpoint = [&](int i) { return i % 2 == 0 ? agent.ipcEndpoint() : agent.tcpEndpoint(); };

  const std::vector<Case> cases = subscriberCases();
  BOOST_REQUIRE_EQUAL(cases.size(), static_cast<std::size_t>(kSubscribers));
  struct Sub {
    std::unique_ptr<ftb::Client> client;
    ftb::SubscriptionId main = 0, sentinel = 0;
  };
  std::vector<Sub> subs(kSubscribers);
  for (int s = 0; s < kSubscribers; ++s) {
    subs[s].client = connectOrFail(endpoint(s), "FTB.TEST.SUBSCRIBER", "sub-" + std::to_string(s));
    auto main = subs[s].client->subscribe({.filter = cases[s].filter, .polling = true});
    BOOST_REQUIRE_MESSAGE(main.ok(), cases[s].filter << ": " << main.status().toString());
    auto sentinel = subs[s].client->subscribe({.filter = kSentinelFilter, .polling = true});
    BOOST_REQUIRE_MESSAGE(sentinel.ok(), sentinel.status().toString());
    subs[s].main = *main;
    subs[s].sentinel = *sentinel;
  }

  // One client, several subscriptions (two with the same filter, one by callback).
  auto multi = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.MULTI", "multi");
  const std::vector<Case> multi_cases = {
      {"event_space=FTB.MPI.*", [](const Planned& p) { return startsWith(p.space, "FTB.MPI."); }},
      {"severity>=error", [](const Planned& p) { return p.severity >= Severity::kError; }},
      {"event_space=FTB.**", [](const Planned&) { return true; }},
      {"event_name=EV_FATAL", [](const Planned& p) { return p.name == "EV_FATAL"; }},
      {"event_space=FTB.MPI.*", [](const Planned& p) { return startsWith(p.space, "FTB.MPI."); }},
  };
  std::vector<ftb::SubscriptionId> multi_ids;
  for (const Case& c : multi_cases) {
    auto id = multi->subscribe({.filter = c.filter, .polling = true});
    BOOST_REQUIRE_MESSAGE(id.ok(), id.status().toString());
    multi_ids.push_back(*id);
  }
  std::mutex callback_mu;
  std::vector<ftb::Event> callback_events;
  bool callback_saw_sentinel = false;
  auto callback_sub = multi->subscribe(
      {.filter = "event_space=FTB.MPI.*|CTL.SENTINEL", .callback = [&](const ftb::Notification& n) {
         std::lock_guard lock(callback_mu);
         if (n.kind != ftb::Notification::Kind::kEvent) {
           callback_events.push_back({.payload = "missed"});
         } else if (n.event.event_space == "CTL.SENTINEL") {
           callback_saw_sentinel = true;
         } else {
           callback_events.push_back(n.event);
         }
       }});
  BOOST_REQUIRE(callback_sub.ok());
  auto multi_sentinel = multi->subscribe({.filter = kSentinelFilter, .polling = true});
  BOOST_REQUIRE(multi_sentinel.ok());

  std::vector<std::unique_ptr<ftb::Client>> pubs;
  std::vector<ftb::EventDeclaration> declarations;
  for (const Declared& d : kEvents) declarations.push_back({d.name, d.severity});
  for (int p = 0; p < kPublishers; ++p) {
    pubs.push_back(connectOrFail(endpoint(p + 1), kSpaces[p % 5], "pub-" + std::to_string(p)));
    BOOST_REQUIRE(pubs.back()->declare(declarations).ok());
  }

  // The agent sees every client and subscription.
  const ftb::proto::StatusReply before = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(before.clients(), static_cast<uint32_t>(kPublishers + kSubscribers + 1));
  BOOST_CHECK_EQUAL(before.subscriptions(), static_cast<uint32_t>(2 * kSubscribers + 7));

  // All publishers at once.
  std::vector<std::thread> threads;
  std::vector<std::string> failures(kPublishers);
  for (int p = 0; p < kPublishers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kEventsPerPublisher; ++i) {
        const Planned e = plan(p, i);
        auto id = pubs[p]->publish(e.name, std::to_string(p) + ":" + std::to_string(i));
        if (!id.ok()) {
          failures[p] = id.status().toString();
          return;
        }
      }
      if (ftb::Status s = pubs[p]->flush(30s); !s.ok()) failures[p] = s.toString();
    });
  }
  for (auto& t : threads) t.join();
  for (int p = 0; p < kPublishers; ++p) {
    BOOST_REQUIRE_MESSAGE(failures[p].empty(), "pub-" << p << ": " << failures[p]);
    BOOST_CHECK_EQUAL(pubs[p]->stats().acked, static_cast<uint64_t>(kEventsPerPublisher));
  }

  auto sentinel_pub = connectOrFail(agent.ipcEndpoint(), "CTL.SENTINEL", "sentinel");
  BOOST_REQUIRE(sentinel_pub->declare({{"DONE", Severity::kInfo}}).ok());
  BOOST_REQUIRE(sentinel_pub->publish("DONE").ok());

  for (int s = 0; s < kSubscribers; ++s) {
    const std::string what = "sub-" + std::to_string(s) + " '" + cases[s].filter + "'";
    checkStream(what, drainAfterSentinel(*subs[s].client, subs[s].main, subs[s].sentinel, what),
                cases[s].matches);
  }

  auto sentinel = multi->poll(*multi_sentinel, 30s);
  BOOST_REQUIRE_MESSAGE(sentinel.ok() && sentinel->has_value(), "multi: no sentinel");
  uint64_t expected_deliveries = 0;
  for (std::size_t c = 0; c < multi_cases.size(); ++c) {
    const std::string what = "multi subscription " + std::to_string(c) + " '" +
                             multi_cases[c].filter + "'";
    std::vector<ftb::Event> got;
    while (true) {
      auto n = multi->poll(multi_ids[c], 0ms);
      BOOST_REQUIRE(n.ok());
      if (!n->has_value()) break;
      BOOST_REQUIRE_MESSAGE((*n)->kind == ftb::Notification::Kind::kEvent, what << ": missed");
      got.push_back((*n)->event);
    }
    checkStream(what, got, multi_cases[c].matches);
    for (int p = 0; p < kPublishers; ++p) {
      for (int i = 0; i < kEventsPerPublisher; ++i) expected_deliveries += multi_cases[c].matches(plan(p, i));
    }
  }
  BOOST_REQUIRE_MESSAGE(ftb::testing::waitFor([&] {
                          std::lock_guard lock(callback_mu);
                          return callback_saw_sentinel;
                        }),
                        "the callback subscription never saw the sentinel");
  {
    std::lock_guard lock(callback_mu);
    checkStream("multi callback subscription", callback_events,
                [](const Planned& p) { return startsWith(p.space, "FTB.MPI."); });
    expected_deliveries += callback_events.size() + 2;  // + the sentinel, twice
  }
  const ftb::ClientStats stats = multi->stats();
  BOOST_CHECK_EQUAL(stats.delivered, expected_deliveries);
  BOOST_CHECK_EQUAL(stats.duplicates_suppressed, 0u);
  BOOST_CHECK_EQUAL(stats.missed, 0u);

  const ftb::proto::StatusReply after = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(after.counters().events_in(),
                    static_cast<uint64_t>(kPublishers * kEventsPerPublisher + 1));
  BOOST_CHECK_EQUAL(after.counters().events_dropped(), 0u);
  BOOST_CHECK_EQUAL(after.counters().events_rejected(), 0u);
}
