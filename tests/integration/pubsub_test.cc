// Publish and subscribe through one real agent.
#define BOOST_TEST_MODULE pubsub
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>

#include "client/client.h"
#include "client/client_impl.h"
#include "client/clock.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::waitFor;

namespace {

}  // namespace

BOOST_AUTO_TEST_CASE(polling_subscriber_receives_matching_events_in_order) {
  AgentProcess agent;
  auto sub = connectOrFail(agent.localEndpoint(), "FTB.TEST.SUB", "sub");
  auto pub = connectOrFail(agent.localEndpoint(), "FTB.MPI.OPENMPI", "pub");
  BOOST_REQUIRE(pub->declare({{"PROC_DEAD", ftb::Severity::kFatal},
                              {"CHECKPOINT", ftb::Severity::kInfo}}).ok());
  auto id = sub->subscribe({.filter = "event_space=FTB.MPI.*, severity>=error", .polling = true});
  BOOST_REQUIRE_MESSAGE(id.ok(), id.status().toString());

  for (int i = 0; i < 100; ++i) {
    BOOST_REQUIRE(pub->publish("CHECKPOINT", "skip").ok());
    BOOST_REQUIRE(pub->publish("PROC_DEAD", std::to_string(i)).ok());
  }
  for (int i = 0; i < 100; ++i) {
    auto n = sub->poll(*id, 5s);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), "event " << i << " did not arrive");
    const ftb::Notification& got = **n;
    BOOST_REQUIRE(got.kind == ftb::Notification::Kind::kEvent);
    BOOST_CHECK_EQUAL(got.event.event_name, "PROC_DEAD");
    BOOST_CHECK_EQUAL(got.event.payload, std::to_string(i));
    BOOST_CHECK_EQUAL(got.event.event_space, "FTB.MPI.OPENMPI");
    BOOST_CHECK(got.event.severity == ftb::Severity::kFatal);
    BOOST_CHECK(got.event.sender.credentials_known);
    BOOST_CHECK_EQUAL(got.event.sender.pid, static_cast<uint32_t>(getpid()));
  }
  auto extra = sub->poll(*id, 200ms);
  BOOST_REQUIRE(extra.ok());
  BOOST_CHECK(!extra->has_value());
}

BOOST_AUTO_TEST_CASE(a_client_stamps_its_events_with_its_clock) {
  AgentProcess agent;
  auto sub = connectOrFail(agent.localEndpoint(), "FTB.TEST.SUB", "sub");
  auto id = sub->subscribe({.filter = "event_space=FTB.TEST.CLOCK", .polling = true});
  BOOST_REQUIRE(id.ok());
  ftb::ManualClock clock;  // 1,700,000,000 s since the epoch
  clock.advance(1234ms);
  ftb::ClientImpl pub({.event_space = "FTB.TEST.CLOCK", .client_name = "clocked",
                       .agent_endpoint = agent.localEndpoint()},
                      clock);
  BOOST_REQUIRE(pub.start().ok());
  BOOST_REQUIRE(pub.declare({{"TICK", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE(pub.publish("TICK", "", {}).ok());
  auto n = sub->poll(*id, 5s);
  BOOST_REQUIRE(n.ok() && n->has_value());
  BOOST_TEST((*n)->event.time_sec == 1'700'000'001);
  BOOST_TEST((*n)->event.time_nsec == 234'000'000);
}

BOOST_AUTO_TEST_CASE(callback_subscriber_and_request_response) {
  AgentProcess agent;
  auto responder = connectOrFail(agent.localEndpoint(), "FTB.CKPT.BLCR", "responder");
  auto requester = connectOrFail(agent.localEndpoint(), "FTB.JL.JOB1", "launcher");
  BOOST_REQUIRE(requester->declare({{"FTB_CHECKPOINT", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE(responder->declare({{"FTB_CHECKPOINT_DONE", ftb::Severity::kInfo}}).ok());
  ftb::Client* r = responder.get();
  auto sub = responder->subscribe(
      {.filter = "event_name=FTB_CHECKPOINT", .callback = [r](const ftb::Notification& n) {
         if (n.kind == ftb::Notification::Kind::kEvent) {
           (void)r->respond(n.event, "FTB_CHECKPOINT_DONE", "ok:" + n.event.payload);
         }
       }});
  BOOST_REQUIRE(sub.ok());
  auto responses = requester->request("FTB_CHECKPOINT", "epoch7", 5s, 1);
  BOOST_REQUIRE_MESSAGE(responses.ok(), responses.status().toString());
  BOOST_REQUIRE_EQUAL(responses->size(), 1u);
  BOOST_CHECK_EQUAL((*responses)[0].payload, "ok:epoch7");
  BOOST_CHECK((*responses)[0].type == ftb::EventType::kResponse);
}

BOOST_AUTO_TEST_CASE(request_carries_tags_to_the_responder) {
  AgentProcess agent;
  auto responder = connectOrFail(agent.localEndpoint(), "FTB.MPI.FTBCKPT", "rank0");
  auto requester = connectOrFail(agent.localEndpoint(), "FTB.JL.JOB2", "launcher");
  BOOST_REQUIRE(requester->declare({{"FTB_CHECKPOINT", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE(responder->declare({{"FTB_CHECKPOINT_DONE", ftb::Severity::kInfo}}).ok());
  ftb::Client* r = responder.get();
  // The responder answers with the request's tags echoed back, so the
  // requester sees what arrived.
  auto sub = responder->subscribe(
      {.filter = "event_space=FTB.JL.JOB2", .callback = [r](const ftb::Notification& n) {
         if (n.kind != ftb::Notification::Kind::kEvent) return;
         ftb::Tags echo = n.event.tags;
         echo["rank"] = "0";
         (void)r->respond(n.event, "FTB_CHECKPOINT_DONE", "done", echo);
       }});
  BOOST_REQUIRE(sub.ok());
  auto responses = requester->request("FTB_CHECKPOINT", "checkpoint now", 5s, 1,
                                      {{"corr", "J2-1"}, {"level", "L2"}});
  BOOST_REQUIRE_MESSAGE(responses.ok(), responses.status().toString());
  BOOST_REQUIRE_EQUAL(responses->size(), 1u);
  const ftb::Event& answer = (*responses)[0];
  BOOST_CHECK(answer.type == ftb::EventType::kResponse);
  BOOST_CHECK_EQUAL(answer.tags.at("corr"), "J2-1");
  BOOST_CHECK_EQUAL(answer.tags.at("level"), "L2");
  BOOST_CHECK_EQUAL(answer.tags.at("rank"), "0");
  BOOST_CHECK_EQUAL(answer.tags.size(), 3u);
}

// A callback may disconnect and destroy its own client (the FTB 0.5 API's
// FTB_Disconnect from a callback relies on it): no self-join, no use of the
// destroyed client, and no callback after the one that disconnected.
BOOST_AUTO_TEST_CASE(a_callback_may_disconnect_and_destroy_its_own_client) {
  AgentProcess agent;
  auto pub = connectOrFail(agent.localEndpoint(), "FTB.TEST.PUB", "pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());
  std::mutex mu;
  std::unique_ptr<ftb::Client> sub = connectOrFail(agent.localEndpoint(), "FTB.TEST.SUB", "self-closing");
  std::atomic<int> calls{0};
  std::atomic<bool> destroyed{false};
  auto id = sub->subscribe({.filter = "event_space=FTB.TEST.PUB", .callback = [&](const ftb::Notification& n) {
                              if (n.kind != ftb::Notification::Kind::kEvent) return;
                              ++calls;
                              std::unique_ptr<ftb::Client> self;
                              {
                                std::lock_guard lock(mu);
                                self = std::move(sub);
                              }
                              if (!self) return;  // (a second callback would count above)
                              BOOST_CHECK(self->disconnect(1s).ok());
                              self.reset();  // destroyed on its own dispatch thread
                              destroyed = true;
                            }});
  BOOST_REQUIRE(id.ok());
  // Several events: the first callback closes the client, none may follow it.
  for (int i = 0; i < 20; ++i) BOOST_REQUIRE(pub->publish("TICK", std::to_string(i)).ok());
  BOOST_REQUIRE(pub->flush(5s).ok());
  BOOST_REQUIRE(waitFor([&] { return destroyed.load(); }, 10s));
  // The agent has routed all 20 (flushed); any callback still to come would run now.
  BOOST_REQUIRE(pub->publish("TICK", "after").ok());
  BOOST_REQUIRE(pub->flush(5s).ok());
  BOOST_CHECK_EQUAL(calls.load(), 1);
}
