// The control API's answers without sockets or real time: status, clients,
// history (through the one subscribe check) and tree.
#define BOOST_TEST_MODULE control_service
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agent/control/control_service.h"
#include "client/clock.h"

using namespace ftb::agent;
using ftb::ManualClock;
using namespace std::chrono_literals;
namespace proto = ftb::proto;
using B = proto::Envelope;

namespace {

NamespacePolicy policy(const std::string& text) {
  auto p = NamespacePolicy::parse(text, "test");
  BOOST_REQUIRE(p.ok());
  return std::move(p).value();
}

Sender local(uint32_t uid) {
  Sender s;
  s.local = PeerCredentials{.uid = uid, .gid = uid, .pid = 77};
  return s;
}

RoutedEventPtr event(const std::string& space, uint64_t seq, int64_t time_sec = 1000) {
  auto e = std::make_shared<RoutedEvent>();
  e->event.set_event_space(space);
  e->event.set_event_name("E");
  e->event.set_severity(proto::INFO);
  e->event.mutable_id()->mutable_origin()->set_host("n1");
  e->event.mutable_id()->set_seq(seq);
  e->event.set_time_sec(time_sec);
  e->event.set_payload("payload " + std::to_string(seq));
  e->bytes = std::make_shared<const std::string>(e->event.SerializeAsString());
  return e;
}

// An agent's state, as the service reads it.
struct Fixture {
  explicit Fixture(const std::string& policy_text = "publish * *\nsubscribe * *\n")
      : policy_(policy(policy_text)) {
    config.name = "node7";
  }

  proto::Envelope ask(proto::Envelope request, const Sender& who = local(1000)) {
    request.set_request_id(42);
    ControlService control({config, sessions, history, admission, policy_, counters, endpoints,
                            clock, started},
                           hooks);
    BOOST_REQUIRE(ControlService::serves(request.body_case()));
    proto::Envelope answer = control.answer(request, who);
    BOOST_TEST(answer.request_id() == 42u);
    return answer;
  }
  proto::Envelope query(const std::string& filter, uint32_t last_n, const Sender& who) {
    proto::Envelope q;
    q.mutable_history_query()->set_filter(filter);
    q.mutable_history_query()->set_last_n(last_n);
    return ask(q, who);
  }
  static std::vector<uint64_t> seqs(const proto::Envelope& answer) {
    BOOST_REQUIRE_MESSAGE(!answer.has_error(), answer.error().message());
    std::vector<uint64_t> out;
    for (const auto& bytes : answer.history_reply().events()) {
      proto::Event e;
      BOOST_REQUIRE(e.ParseFromString(bytes));
      out.push_back(e.id().seq());
    }
    return out;
  }

  AgentConfig config;
  ManualClock clock;
  std::chrono::steady_clock::time_point started = clock.steadyNow();
  SessionTable sessions{clock};
  EventHistory history{100, 1 << 20, std::chrono::seconds(3600)};
  NamespacePolicy policy_;
  Admission admission{policy_};
  proto::Counters counters;
  std::vector<std::string> endpoints{"ipc:///tmp/ftb-test.sock"};
  ControlService::Hooks hooks;
};

std::unique_ptr<ClientSession> client(const std::string& id, const std::string& name) {
  auto s = std::make_unique<ClientSession>(8);
  s->routing_id = id;
  s->publisher_key = "key-" + id;
  s->client_name = name;
  s->event_space = "FTB.TEST";
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(only_control_requests_are_served) {
  BOOST_TEST(ControlService::serves(B::kStatusRequest));
  BOOST_TEST(ControlService::serves(B::kClientsRequest));
  BOOST_TEST(ControlService::serves(B::kHistoryQuery));
  BOOST_TEST(ControlService::serves(B::kTreeQuery));
  BOOST_TEST(!ControlService::serves(B::kPublish));
  BOOST_TEST(!ControlService::serves(B::kHello));
  BOOST_TEST(!ControlService::serves(B::kTree));
}

BOOST_AUTO_TEST_CASE(status_counts_clients_subscriptions_history_and_uptime) {
  Fixture f;
  ClientSession& a = f.sessions.add(client("r1", "a"), local(1000));
  a.subscriptions[1] = Subscription{1, *ftb::Filter::parse("")};
  a.subscriptions[2] = Subscription{2, *ftb::Filter::parse("")};
  ClientSession& b = f.sessions.add(client("r2", "b"), local(1000));
  b.subscriptions[1] = Subscription{1, *ftb::Filter::parse("event_space=FTB.X")};
  f.history.add(event("FTB.TEST", 1));
  f.counters.set_events_in(9);
  f.clock.advance(1500ms);
  bool auth_asked = false;
  f.hooks.add_auth = [&](proto::StatusReply& r) {
    auth_asked = true;
    r.set_last_auth_refusal("none");
  };
  const proto::StatusReply r = f.ask([] { proto::Envelope e; e.mutable_status_request(); return e; }())
                                   .status_reply();
  BOOST_TEST(r.agent_name() == "node7");
  BOOST_TEST(r.clients() == 2u);
  BOOST_TEST(r.subscriptions() == 3u);
  BOOST_TEST(r.history_events() == 1u);
  BOOST_TEST(r.uptime_ms() == 1500u);
  BOOST_TEST(r.counters().events_in() == 9u);
  BOOST_TEST(r.endpoints_size() == 1);
  BOOST_TEST(auth_asked);
  BOOST_TEST(r.last_auth_refusal() == "none");
}

BOOST_AUTO_TEST_CASE(clients_lists_each_session_with_its_credentials_and_subscriptions) {
  Fixture f;
  auto s = client("r1", "watcher");
  s->principal.peer = PeerCredentials{.uid = 1000, .gid = 1000, .pid = 321};
  s->subscriptions[5] = Subscription{5, *ftb::Filter::parse("event_space=FTB.MPI.*")};
  s->declared["E_ONE"] = proto::WARNING;
  s->events_published = 3;
  f.sessions.add(std::move(s), local(1000));
  const proto::ClientsReply r =
      f.ask([] { proto::Envelope e; e.mutable_clients_request(); return e; }()).clients_reply();
  BOOST_TEST_REQUIRE(r.clients_size() == 1);
  const auto& c = r.clients(0);
  BOOST_TEST(c.client_name() == "watcher");
  BOOST_TEST(c.peer().agent() == "node7");
  BOOST_TEST(c.peer().uid() == 1000u);
  BOOST_TEST(c.peer().pid() == 321u);
  BOOST_TEST(c.peer().credentials_known());
  BOOST_TEST_REQUIRE(c.subscriptions_size() == 1);
  BOOST_TEST(c.subscriptions(0).subscription_id() == 5u);
  BOOST_TEST_REQUIRE(c.declarations_size() == 1);
  BOOST_TEST(c.declarations(0).name() == "E_ONE");
  BOOST_TEST(c.events_published() == 3u);
  BOOST_TEST(c.connected_ms() ==
             static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       f.clock.systemNow().time_since_epoch())
                                       .count()));
}

BOOST_AUTO_TEST_CASE(history_returns_the_newest_matching_events) {
  Fixture f;
  for (uint64_t seq = 1; seq <= 5; ++seq) f.history.add(event(seq % 2 ? "FTB.A" : "FTB.B", seq));
  BOOST_TEST(Fixture::seqs(f.query("", 0, local(1000))) == (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  BOOST_TEST(Fixture::seqs(f.query("", 2, local(1000))) == (std::vector<uint64_t>{4, 5}));
  BOOST_TEST(Fixture::seqs(f.query("event_space=FTB.A", 0, local(1000))) ==
             (std::vector<uint64_t>{1, 3, 5}));
}

BOOST_AUTO_TEST_CASE(history_is_bounded_by_publish_time) {
  Fixture f;
  for (uint64_t seq = 1; seq <= 4; ++seq) f.history.add(event("FTB.A", seq, 100 * seq));
  proto::Envelope q;
  q.mutable_history_query()->set_filter("");
  q.mutable_history_query()->set_since_unix_ns(200'000'000'000);
  q.mutable_history_query()->set_until_unix_ns(300'000'000'000);
  BOOST_TEST(Fixture::seqs(f.ask(q)) == (std::vector<uint64_t>{2, 3}));
}

// The hole issue 17 named: `ftbctl history` showed events of namespaces the
// policy refuses to that user's subscriptions.
BOOST_AUTO_TEST_CASE(history_answers_to_the_subscribe_check) {
  Fixture f("publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n");
  f.history.add(event("FTB.OPEN", 1));
  f.history.add(event("FTB.SECRET.KEYS", 2));
  f.history.add(event("FTB.OPEN", 3));
  f.history.add(event("FTB.SECRET.KEYS", 4));
  BOOST_TEST(Fixture::seqs(f.query("", 0, local(65534))) == (std::vector<uint64_t>{1, 3}));
  // last_n counts what the querier may see, not what is withheld.
  BOOST_TEST(Fixture::seqs(f.query("", 2, local(65534))) == (std::vector<uint64_t>{1, 3}));
  BOOST_TEST(Fixture::seqs(f.query("", 0, local(0))) == (std::vector<uint64_t>{1, 2, 3, 4}));
  Sender anonymous;
  anonymous.address = "10.0.0.7";
  BOOST_TEST(Fixture::seqs(f.query("", 0, anonymous)) == (std::vector<uint64_t>{1, 3}));
}

// Need to know: clients and status show a client in a namespace the asker may
// not subscribe to only to root and to the client's own uid.
BOOST_AUTO_TEST_CASE(clients_and_status_show_others_only_where_the_asker_may_subscribe) {
  Fixture f("publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n");
  auto secret = client("r1", "keeper");
  secret->event_space = "FTB.SECRET.KEYS";
  secret->principal.peer = PeerCredentials{.uid = 0, .gid = 0, .pid = 10};
  secret->subscriptions[1] = Subscription{1, *ftb::Filter::parse("")};
  f.sessions.add(std::move(secret), local(0));
  auto mine = client("r2", "mine");
  mine->event_space = "FTB.SECRET.MINE";
  mine->principal.peer = PeerCredentials{.uid = 1000, .gid = 1000, .pid = 11};
  f.sessions.add(std::move(mine), local(1000));
  f.sessions.add(client("r3", "open"), local(0));  // FTB.TEST

  auto names = [&](const Sender& who) {
    proto::Envelope q;
    q.mutable_clients_request();
    const proto::Envelope answer = f.ask(q, who);
    std::vector<std::string> out;
    for (const auto& c : answer.clients_reply().clients()) out.push_back(c.client_name());
    std::sort(out.begin(), out.end());
    return out;
  };
  auto counts = [&](const Sender& who) {
    proto::Envelope q;
    q.mutable_status_request();
    const auto r = f.ask(q, who).status_reply();
    return std::make_pair(r.clients(), r.subscriptions());
  };
  BOOST_TEST(names(local(0)) == (std::vector<std::string>{"keeper", "mine", "open"}));
  BOOST_TEST(names(local(1000)) == (std::vector<std::string>{"mine", "open"}));  // its own, and the open one
  BOOST_TEST(names(local(65534)) == (std::vector<std::string>{"open"}));
  Sender anonymous;
  anonymous.address = "10.0.0.7";
  BOOST_TEST(names(anonymous) == (std::vector<std::string>{"open"}));
  BOOST_TEST((counts(local(0)) == std::make_pair(3u, 1u)));
  BOOST_TEST((counts(local(65534)) == std::make_pair(1u, 0u)));
}

BOOST_AUTO_TEST_CASE(a_bad_history_filter_is_an_invalid_argument) {
  Fixture f;
  const proto::Envelope answer = f.query("severity=", 0, local(1000));
  BOOST_TEST_REQUIRE(answer.has_error());
  BOOST_TEST(answer.error().code() == proto::Error::INVALID_ARGUMENT);
  BOOST_TEST(!answer.error().message().empty());
}

BOOST_AUTO_TEST_CASE(tree_info_comes_from_the_tree_bridge) {
  Fixture f;
  f.sessions.add(client("r1", "a"), local(1000));
  f.clock.advance(1500ms);
  proto::Envelope q;
  q.mutable_tree_query();
  const proto::TreeInfo outside = f.ask(q).tree_info();
  BOOST_TEST(outside.state() == "off");  // a TCP endpoint without a cluster key
  BOOST_TEST(outside.clients() == 1u);
  BOOST_TEST(outside.uptime_ms() == 1500u);
  f.config.tcp_endpoint = "none";
  BOOST_TEST(f.ask(q).tree_info().state() == "disabled");
  f.hooks.fill_tree = [](proto::TreeInfo* info) {
    info->set_state("root");
    return true;
  };
  BOOST_TEST(f.ask(q).tree_info().state() == "root");
  BOOST_TEST(f.ask(q).tree_info().clients() == 1u);
}
