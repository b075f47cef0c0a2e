// ClientService over a recording sink and a ManualClock, its clients this
// test process itself (the origin the kernel vouches for): Hello, the
// subscriptions with their replay, the ends of a session and what only a
// lost client's end publishes.
#define BOOST_TEST_MODULE client_service
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "agent/clients/client_service.h"
#include "client/clock.h"
#include "client/origin.h"
#include "client/wire/codec.h"
#include "tests/support/agent_core.h"

using namespace ftb::agent;
using namespace std::chrono_literals;
namespace proto = ftb::proto;

namespace {

Sender thisProcess() {
  Sender s;
  s.local = PeerCredentials{.uid = ::getuid(), .gid = ::getgid(), .pid = static_cast<uint32_t>(::getpid())};
  return s;
}

struct Fixture : ftb::testing::AgentCore {
  Fixture() {
    config.name = "node7";
    config.client_timeout_ms = 1000;
  }

  proto::Envelope hello(uint32_t instance, const std::string& name, bool with_will = false) {
    proto::Envelope e;
    e.set_request_id(1);
    proto::Hello* h = e.mutable_hello();
    h->set_client_name(name);
    h->set_event_space("FTB.APP");
    *h->mutable_origin() = ftb::localOrigin();
    h->set_client_instance(instance);
    if (with_will) {
      proto::EventDeclaration* declared = h->add_declarations();  // a will is an event it declares
      declared->set_name("APP_DIED");
      declared->set_severity(proto::ERROR);
      h->mutable_last_will()->set_event_name("APP_DIED");
      h->mutable_last_will()->set_severity(proto::ERROR);
    }
    return e;
  }
  proto::Envelope subscribe(uint32_t id, const std::string& filter, uint32_t last_n = 0) {
    proto::Envelope e;
    e.set_request_id(2);
    e.mutable_subscribe()->set_subscription_id(id);
    e.mutable_subscribe()->set_filter(filter);
    if (last_n > 0) e.mutable_subscribe()->mutable_history()->set_last_n(last_n);
    return e;
  }
  std::vector<proto::Envelope> framesTo(const std::string& id) {
    std::vector<proto::Envelope> out;
    for (const auto& f : sink.sent[id]) {
      auto e = ftb::wire::decode(f.data(), f.size());
      BOOST_REQUIRE(e.ok());
      out.push_back(*e);
    }
    return out;
  }
  std::size_t agentEvents(const std::string& name) {
    std::size_t n = 0;
    for (const auto& e : history.lastN(100, *ftb::Filter::parse("event_space=FTB.AGENT"))) {
      n += e->event.event_name() == name ? 1 : 0;
    }
    return n;
  }

  std::unique_ptr<TreeBridge> no_tree;
  std::unique_ptr<LocalStreamServer> no_stream;
  EventIntake intake{{config, sessions, router, no_tree, policy, metrics, counters, log, replies, sink, clock},
                     /*incarnation=*/77};
  Departures departures{{*poller, sessions, sink, clock, config, log},
                        [this](const std::string& id, std::string_view why) {
                          clients.end(id, SessionEnd::kLost, why);
                        }};
  ClientService clients{{config, sessions, index, router, history, admission, policy, replies, intake,
                         departures, no_tree, no_stream, metrics, counters, log, clock}};
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(hello_opens_a_session_and_tells_the_client_the_agents_limits, Fixture) {
  clients.onHello("c1", hello(1, "app"), thisProcess());
  const auto replies_to_c1 = framesTo("c1");
  BOOST_REQUIRE(replies_to_c1.size() == 1u);
  BOOST_REQUIRE(replies_to_c1[0].has_hello_reply());
  const proto::HelloReply& r = replies_to_c1[0].hello_reply();
  BOOST_TEST(r.agent_name() == "node7");
  BOOST_TEST(r.client_timeout_ms() == 1000u);
  BOOST_TEST(r.accepted_seq() == 0u);
  ClientSession* s = clients.active("c1");
  BOOST_REQUIRE(s != nullptr);
  BOOST_TEST(s->event_space == "FTB.APP");
  BOOST_TEST(s->process.has_value());  // its process is watched
  BOOST_TEST(counters.clients_connected_total() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_hello_with_a_bad_namespace_opens_nothing_and_says_why, Fixture) {
  proto::Envelope bad = hello(1, "app");
  bad.mutable_hello()->set_event_space("no spaces allowed");
  clients.onHello("c1", bad, thisProcess());
  BOOST_TEST(clients.active("c1") == nullptr);
  BOOST_REQUIRE(framesTo("c1").size() == 1u);
  BOOST_TEST(framesTo("c1")[0].error().code() == proto::Error::INVALID_ARGUMENT);
}

BOOST_FIXTURE_TEST_CASE(a_rank_is_kept_with_its_job_and_a_rank_without_a_usable_job_is_refused, Fixture) {
  proto::Envelope ranked = hello(1, "rank5");
  ranked.mutable_hello()->set_job_id("J1");
  ranked.mutable_hello()->set_rank(5);
  clients.onHello("c1", ranked, thisProcess());
  ClientSession* s = clients.active("c1");
  BOOST_REQUIRE(s != nullptr);
  BOOST_TEST(s->rank.value_or(-1) == 5);

  struct Bad {
    std::string job;
    int rank;
    std::string said;
  };
  uint32_t instance = 2;
  for (const Bad& bad : {Bad{"", 0, "needs a job_id"}, Bad{"J1", -1, "negative"}, Bad{"J;1", 0, ",;:"}}) {
    const std::string id = "c" + std::to_string(instance);
    proto::Envelope e = hello(instance++, "bad");
    e.mutable_hello()->set_job_id(bad.job);
    e.mutable_hello()->set_rank(bad.rank);
    clients.onHello(id, e, thisProcess());
    BOOST_TEST(clients.active(id) == nullptr);
    BOOST_REQUIRE(framesTo(id).size() == 1u);
    const proto::Error error = framesTo(id)[0].error();
    BOOST_TEST(error.code() == proto::Error::INVALID_ARGUMENT);
    BOOST_TEST(error.message().find(bad.said) != std::string::npos, error.message());
  }
}

BOOST_FIXTURE_TEST_CASE(a_reconnecting_client_replaces_its_old_session_without_a_will, Fixture) {
  clients.onHello("c1", hello(1, "app", /*with_will=*/true), thisProcess());
  BOOST_REQUIRE(clients.active("c1") != nullptr);
  clients.onHello("c2", hello(1, "app", true), thisProcess());  // same origin, new socket
  BOOST_TEST(clients.active("c1") == nullptr);
  BOOST_TEST(clients.active("c2") != nullptr);
  BOOST_TEST(agentEvents("FTB_CLIENT_LOST") == 0u);
  BOOST_TEST(history.size() == 0u);  // no will either
}

BOOST_FIXTURE_TEST_CASE(a_subscription_replays_history_and_an_unknown_one_cannot_be_dropped, Fixture) {
  clients.onHello("c1", hello(1, "app"), thisProcess());
  intake.publishAgentEvent("FTB_AGENT_TEST", proto::INFO, "one");
  intake.publishAgentEvent("FTB_AGENT_TEST", proto::INFO, "two");
  router.flush();
  sink.sent.clear();
  ClientSession& s = *clients.active("c1");
  clients.onSubscribe(s, subscribe(5, "event_space=FTB.AGENT", /*last_n=*/10));
  router.flush();
  const auto frames = framesTo("c1");
  BOOST_REQUIRE(frames.size() >= 2u);  // the reply, then the replayed events
  BOOST_REQUIRE(frames[0].has_subscribe_reply());
  BOOST_TEST(frames[0].subscribe_reply().history_events() == 2u);
  BOOST_TEST(frames[0].subscribe_reply().history_complete());
  BOOST_TEST(frames[1].has_deliver());
  BOOST_TEST(s.subscriptions.count(5) == 1u);

  sink.sent.clear();
  proto::Envelope drop;
  drop.mutable_unsubscribe()->set_subscription_id(6);
  clients.onUnsubscribe(s, drop);
  BOOST_REQUIRE(framesTo("c1").size() == 1u);
  BOOST_TEST(framesTo("c1")[0].error().code() == proto::Error::NOT_FOUND);
  drop.mutable_unsubscribe()->set_subscription_id(5);
  clients.onUnsubscribe(s, drop);
  BOOST_TEST(s.subscriptions.empty());
}

BOOST_FIXTURE_TEST_CASE(only_a_lost_client_gets_its_will_and_a_notice, Fixture) {
  clients.onHello("c1", hello(1, "polite", true), thisProcess());
  BOOST_REQUIRE(clients.active("c1") != nullptr);
  clients.onGoodbye("c1");
  BOOST_TEST(clients.active("c1") == nullptr);
  BOOST_TEST(agentEvents("FTB_CLIENT_LOST") == 0u);

  clients.onHello("c2", hello(2, "silent", true), thisProcess());
  manual_clock.advance(std::chrono::milliseconds(config.client_timeout_ms) + 1ms);
  clients.housekeep();
  BOOST_TEST(clients.active("c2") == nullptr);
  BOOST_TEST(agentEvents("FTB_CLIENT_LOST") == 1u);
  BOOST_TEST(history.lastN(10, *ftb::Filter::parse("event_space=FTB.APP")).size() == 1u);  // its will
  BOOST_TEST(counters.clients_expired() == 1u);
}
