// EventIntake without sockets or real time (AgentCore: a Router over a
// recording sink, a ManualClock). What a client's publish must be to be
// accepted, what the agent stamps on it, when publishers are acknowledged,
// and the agent's own events.
#define BOOST_TEST_MODULE event_intake
#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/intake/event_intake.h"
#include "client/clock.h"
#include "client/event.h"
#include "client/wire/codec.h"
#include "tests/support/agent_core.h"

using namespace ftb::agent;
using namespace std::chrono_literals;
namespace proto = ftb::proto;

namespace {

struct Fixture : ftb::testing::AgentCore {
  Fixture() {
    config.name = "node7";
    publisher = &open("pub", 100);
    publisher->event_space = "FTB.APP";
    publisher->declared["JOB_DONE"] = proto::INFO;
    subscriber = &open("sub", 200);
    auto filter = ftb::Filter::parse("");
    BOOST_REQUIRE(filter.ok());
    subscriber->subscriptions.insert_or_assign(1, Subscription{1, *filter});
    index.add(subscriber, 1, *filter);
  }

  ClientSession& open(const std::string& id, uint32_t pid) {
    auto s = std::make_unique<ClientSession>(1000);
    s->routing_id = id;
    s->client_name = id;
    s->origin.set_host("node7");
    s->origin.set_pid(pid);
    s->origin.set_process_start_ns(5);
    s->publisher_key = ftb::EventId{.host = "node7", .pid = pid, .process_start_ns = 5}.publisherKey();
    s->tree_key = s->publisher_key;
    Sender sender;
    sender.local = PeerCredentials{.uid = 1000, .gid = 1000, .pid = pid};
    s->principal = admission.principalOf(sender);
    return sessions.add(std::move(s), sender);
  }

  // An event of the publisher's, as its SDK encodes it.
  std::string event(uint64_t seq, const std::string& name = "JOB_DONE") {
    proto::Event e;
    e.set_event_space("FTB.APP");
    e.set_event_name(name);
    e.set_severity(proto::INFO);
    e.set_client_name("pub");
    *e.mutable_id()->mutable_origin() = publisher->origin;
    e.mutable_id()->set_seq(seq);
    return e.SerializeAsString();
  }
  void publish(const std::vector<std::string>& events) {
    std::vector<std::string_view> views(events.begin(), events.end());
    intake.onPublish(*publisher, views);
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

  std::unique_ptr<TreeBridge> no_tree;
  EventIntake intake{{config, sessions, router, no_tree, policy, metrics, counters, log, replies, sink, clock},
                     /*incarnation=*/77};
  ClientSession* publisher = nullptr;
  ClientSession* subscriber = nullptr;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_declared_event_is_stamped_routed_and_acknowledged, Fixture) {
  publish({event(1)});
  BOOST_TEST(framesTo("pub").empty());  // no ack before the delay, no error
  BOOST_REQUIRE(history.size() == 1u);
  router.flush();
  BOOST_REQUIRE(framesTo("sub").size() == 1u);
  proto::Event delivered;
  BOOST_REQUIRE(delivered.ParseFromString(framesTo("sub")[0].deliver().deliveries(0).event()));
  BOOST_TEST(delivered.sender().agent() == "node7");  // who the kernel says sent it
  BOOST_TEST(counters.events_in() == 1u);

  manual_clock.advance(kAckDelay);
  intake.sendAcks();
  const auto acks = framesTo("pub");
  BOOST_REQUIRE(acks.size() == 1u);
  BOOST_TEST(acks[0].publish_ack().acked_seq() == 1u);
}

BOOST_FIXTURE_TEST_CASE(an_event_sent_again_after_a_reconnect_is_not_routed_twice, Fixture) {
  publish({event(1), event(2)});
  publish({event(2)});
  BOOST_TEST(history.size() == 2u);
  BOOST_TEST(framesTo("pub").empty());
}

BOOST_FIXTURE_TEST_CASE(an_undeclared_event_is_refused_with_its_sequence_and_the_reason, Fixture) {
  publish({event(1, "NOT_DECLARED")});
  BOOST_TEST(history.size() == 0u);
  const auto errors = framesTo("pub");
  BOOST_REQUIRE(errors.size() == 1u);
  BOOST_TEST(errors[0].error().code() == proto::Error::FAILED_PRECONDITION);
  BOOST_TEST(errors[0].error().event_seq() == 1u);
  BOOST_TEST(errors[0].error().message().find("declare it before publishing") != std::string::npos);
  BOOST_TEST(counters.events_rejected() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_publish_the_policy_forbids_says_who_may, Fixture) {
  publisher->may_publish = false;
  publish({event(1)});
  const auto errors = framesTo("pub");
  BOOST_REQUIRE(errors.size() == 1u);
  BOOST_TEST(errors[0].error().code() == proto::Error::PERMISSION_DENIED);
  BOOST_TEST(errors[0].error().message().find("namespace policy") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(a_bad_declaration_changes_nothing, Fixture) {
  proto::Envelope declare;
  declare.set_request_id(3);
  auto* good = declare.mutable_declare()->add_declarations();
  good->set_name("NEW_EVENT");
  good->set_severity(proto::WARNING);
  auto* bad = declare.mutable_declare()->add_declarations();
  bad->set_name("ALSO_NEW");
  bad->set_severity(static_cast<proto::Severity>(99));
  intake.onDeclare(*publisher, declare);
  BOOST_TEST(publisher->declared.count("NEW_EVENT") == 0u);  // all or nothing
  BOOST_REQUIRE(framesTo("pub").size() == 1u);
  BOOST_TEST(framesTo("pub")[0].error().code() == proto::Error::INVALID_ARGUMENT);
}

BOOST_FIXTURE_TEST_CASE(a_last_will_goes_out_once, Fixture) {
  proto::Event will;
  will.set_event_space("FTB.APP");
  will.set_event_name("PUB_DIED");
  will.set_severity(proto::ERROR);
  *will.mutable_id()->mutable_origin() = publisher->origin;
  publisher->last_will = will;
  BOOST_TEST(intake.publishLastWill(*publisher));
  BOOST_REQUIRE(history.size() == 1u);
  publisher->last_will = will;  // the client came back with the same origin and went again
  BOOST_TEST(!intake.publishLastWill(*publisher));
  BOOST_TEST(history.size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(the_agents_own_events_are_numbered_under_its_incarnation, Fixture) {
  intake.publishAgentEvent("FTB_AGENT_TEST", proto::INFO, "agent=node7", {{"k", "v"}});
  intake.publishClientLost(*subscriber, "its process exited", false);
  const auto events = history.lastN(10, *ftb::Filter::parse("event_space=FTB.AGENT"));
  BOOST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0]->event.id().seq() == 1u);
  BOOST_TEST(events[1]->event.id().seq() == 2u);
  BOOST_TEST(events[0]->event.id().origin().process_start_ns() == 77u);
  BOOST_TEST(events[0]->event.tags().at("k") == "v");
  BOOST_TEST(events[1]->event.event_name() == "FTB_CLIENT_LOST");
  BOOST_TEST(events[1]->event.tags().at("why") == "its process exited");
}
