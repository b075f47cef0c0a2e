// The Router without sockets or real time: a fake FrameSink records frames
// (or refuses them, as a full pipe does) and a ManualClock stands for time.
#define BOOST_TEST_MODULE router
#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/routing/router.h"
#include "client/clock.h"
#include "client/event.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"
#include "tests/support/recording_frame_sink.h"

using namespace ftb::agent;
using ftb::ManualClock;
namespace proto = ftb::proto;

namespace {

class FakeSink final : public ftb::testing::RecordingFrameSink {
 public:
  // The Deliver frames sent to `routing_id`, decoded.
  std::vector<proto::Deliver> delivers(const std::string& routing_id) const {
    std::vector<proto::Deliver> out;
    auto it = sent.find(routing_id);
    if (it == sent.end()) return out;
    for (const auto& frame : it->second) {
      auto envelope = ftb::wire::decode(frame.data(), frame.size());
      BOOST_REQUIRE(envelope.ok());
      BOOST_REQUIRE(envelope->has_deliver());
      out.push_back(envelope->deliver());
    }
    return out;
  }
};

NamespacePolicy policy(const std::string& text) {
  auto p = NamespacePolicy::parse(text, "test");
  BOOST_REQUIRE(p.ok());
  return std::move(p).value();
}

struct Fixture {
  explicit Fixture(const std::string& policy_text = "publish * *\nsubscribe * *\n")
      : policy_(policy(policy_text)) {}

  // A session of local uid `uid` holding `filters` (subscription ids 1, 2, ...).
  ClientSession& client(const std::string& id, uint32_t uid, const std::vector<std::string>& filters,
                        std::size_t queue_events = 1000) {
    auto s = std::make_unique<ClientSession>(queue_events);
    s->routing_id = id;
    s->publisher_key = ftb::EventId{.host = "n1", .pid = uid + 1, .process_start_ns = 7}.publisherKey();
    s->client_name = id;
    Sender sender;
    sender.local = PeerCredentials{.uid = uid, .gid = uid, .pid = uid + 1};
    s->principal = admission.principalOf(sender);
    ClientSession& added = sessions.add(std::move(s), sender);
    uint32_t sub = 0;
    for (const auto& text : filters) {
      auto filter = ftb::Filter::parse(text);
      BOOST_REQUIRE(filter.ok());
      ++sub;
      added.subscriptions.insert_or_assign(sub, Subscription{sub, *filter});
      index.add(&added, sub, *filter);
    }
    return added;
  }

  ManualClock clock;
  SessionTable sessions{clock};
  SubscriptionIndex index;
  EventHistory history{100, 1 << 20, std::chrono::seconds(60)};
  NamespacePolicy policy_;
  Admission admission{policy_};
  AgentMetrics metrics{16};
  proto::Counters counters;
  RateLimitedLog log;
  FakeSink sink;
  Router router{{sessions, index, history, admission, metrics, counters, log, sink, clock}};
};

RoutedEventPtr event(const std::string& space, uint64_t seq, const std::string& name = "E") {
  auto e = std::make_shared<RoutedEvent>();
  e->event.set_event_space(space);
  e->event.set_event_name(name);
  e->event.set_severity(proto::INFO);
  e->event.mutable_id()->mutable_origin()->set_host("publisher");
  e->event.mutable_id()->set_seq(seq);
  e->bytes = std::make_shared<const std::string>(e->event.SerializeAsString());
  return e;
}

std::vector<uint32_t> ids(const proto::Delivery& d) {
  return {d.subscription_ids().begin(), d.subscription_ids().end()};
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_event_goes_to_matching_subscriptions_once_per_session_and_into_history) {
  Fixture f;
  f.client("a", 1000, {"event_space=FTB.MPI.*", "event_space=FTB.MPI.RANK"});
  f.client("b", 1000, {"event_space=FTB.IB"});
  f.router.publish(event("FTB.MPI.RANK", 1));
  BOOST_TEST(f.sink.sent.empty());  // batched until the turn's flush
  f.router.flush();
  const auto a = f.sink.delivers("a");
  BOOST_TEST_REQUIRE(a.size() == 1u);
  BOOST_TEST_REQUIRE(a[0].deliveries_size() == 1);
  BOOST_TEST(ids(a[0].deliveries(0)) == (std::vector<uint32_t>{1, 2}));
  BOOST_TEST(f.sink.delivers("b").empty());
  BOOST_TEST(f.history.size() == 1u);
  BOOST_TEST(f.counters.events_out() == 1u);
  BOOST_TEST(f.sessions.find("a")->events_delivered == 1u);
  // route() alone does not keep the event (events from the tree are kept by their caller).
  f.router.route(event("FTB.MPI.RANK", 2));
  f.router.flush();
  BOOST_TEST(f.history.size() == 1u);
  BOOST_TEST(f.sink.delivers("a").size() == 2u);
}

BOOST_AUTO_TEST_CASE(one_turn_batches_a_sessions_deliveries_into_frames_of_at_most_256) {
  Fixture f;
  f.client("a", 1000, {""});
  for (uint64_t seq = 1; seq <= kMaxDeliveriesPerFrame + 3; ++seq) f.router.publish(event("FTB.X", seq));
  BOOST_TEST(f.sink.delivers("a").size() == 1u);  // the full frame went at once
  f.router.flush();
  const auto frames = f.sink.delivers("a");
  BOOST_TEST_REQUIRE(frames.size() == 2u);
  BOOST_TEST(frames[0].deliveries_size() == static_cast<int>(kMaxDeliveriesPerFrame));
  BOOST_TEST(frames[1].deliveries_size() == 3);
  proto::Event last;
  BOOST_REQUIRE(last.ParseFromString(frames[1].deliveries(2).event()));
  BOOST_TEST(last.id().seq() == kMaxDeliveriesPerFrame + 3);  // in publish order
}

BOOST_AUTO_TEST_CASE(the_subscribe_check_withholds_what_the_policy_refuses) {
  Fixture f("publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n");
  f.client("root", 0, {""});
  f.client("nobody", 65534, {""});
  f.router.publish(event("FTB.SECRET.KEYS", 1));
  f.router.publish(event("FTB.OPEN", 2));
  f.router.flush();
  const auto root = f.sink.delivers("root");
  const auto nobody = f.sink.delivers("nobody");
  BOOST_TEST_REQUIRE(root.size() == 1u);
  BOOST_TEST(root[0].deliveries_size() == 2);
  BOOST_TEST_REQUIRE(nobody.size() == 1u);
  BOOST_TEST_REQUIRE(nobody[0].deliveries_size() == 1);
  proto::Event seen;
  BOOST_REQUIRE(seen.ParseFromString(nobody[0].deliveries(0).event()));
  BOOST_TEST(seen.event_space() == "FTB.OPEN");
  BOOST_TEST(!f.router.mayReceive(*f.sessions.find("nobody"), "FTB.SECRET.KEYS"));
  BOOST_TEST(f.router.mayReceive(*f.sessions.find("root"), "FTB.SECRET.KEYS"));
}

// Need to know: an agent event telling of a namespace (FTB_CLIENT_LOST's
// `space` tag) reaches only who may see that namespace, live and in replays.
BOOST_AUTO_TEST_CASE(an_agent_event_telling_of_a_namespace_reaches_only_who_may_see_it) {
  Fixture f("publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n");
  f.client("root", 0, {"event_space=FTB.AGENT"});
  f.client("nobody", 65534, {"event_space=FTB.AGENT"});
  const auto lost = [](const std::string& space, uint64_t seq) {
    auto e = std::make_shared<RoutedEvent>(*event(kAgentEventSpace, seq, "FTB_CLIENT_LOST"));
    (*e->event.mutable_tags())["space"] = space;
    e->bytes = std::make_shared<const std::string>(e->event.SerializeAsString());
    return RoutedEventPtr(e);
  };
  f.router.publish(lost("FTB.SECRET.JOB", 1));
  f.router.publish(lost("FTB.OPEN.JOB", 2));
  f.router.publish(event(kAgentEventSpace, 3, "FTB_AGENT_JOINED"));  // tells of no namespace
  f.router.flush();
  const auto root = f.sink.delivers("root");
  const auto nobody = f.sink.delivers("nobody");
  BOOST_TEST_REQUIRE(root.size() == 1u);
  BOOST_TEST(root[0].deliveries_size() == 3);
  BOOST_TEST_REQUIRE(nobody.size() == 1u);
  BOOST_TEST_REQUIRE(nobody[0].deliveries_size() == 2);
  std::set<uint64_t> seqs;
  for (const auto& d : nobody[0].deliveries()) {
    proto::Event seen;
    BOOST_REQUIRE(seen.ParseFromString(d.event()));
    seqs.insert(seen.id().seq());
  }
  BOOST_TEST((seqs == std::set<uint64_t>{2, 3}));
  // The same rule for what history hands out.
  const auto replay = visibleTo(f.admission, f.sessions.find("nobody")->principal, f.history.lastN(10, ftb::Filter::parse("").value()), 10);
  BOOST_TEST(replay.size() == 2u);
  BOOST_TEST(namespaceToldOf(lost("FTB.X", 4)->event) == "FTB.X");
  BOOST_TEST(namespaceToldOf(event("FTB.OTHER", 5)->event).empty());
}

BOOST_AUTO_TEST_CASE(a_response_reaches_its_requester_through_the_inbox) {
  Fixture f;
  ClientSession& requester = f.client("req", 1000, {});
  ClientSession& watcher = f.client("watch", 1001, {"event_space=FTB.SVC"});
  (void)watcher;
  auto response = std::make_shared<RoutedEvent>(*event("FTB.SVC", 9));
  auto& e = const_cast<proto::Event&>(response->event);
  e.set_type(proto::RESPONSE);
  e.mutable_response_to()->mutable_origin()->set_host("n1");
  e.mutable_response_to()->mutable_origin()->set_pid(1001);  // the requester's origin
  e.mutable_response_to()->mutable_origin()->set_process_start_ns(7);
  e.mutable_response_to()->set_seq(4);
  BOOST_REQUIRE(ftb::fromProto(e.response_to()).publisherKey() == requester.publisher_key);
  response->bytes = std::make_shared<const std::string>(e.SerializeAsString());
  f.router.publish(response);
  f.router.flush();
  const auto req = f.sink.delivers("req");
  BOOST_TEST_REQUIRE(req.size() == 1u);
  BOOST_TEST(ids(req[0].deliveries(0)) == (std::vector<uint32_t>{kResponseInbox}));
  const auto w = f.sink.delivers("watch");
  BOOST_TEST_REQUIRE(w.size() == 1u);
  BOOST_TEST(ids(w[0].deliveries(0)) == (std::vector<uint32_t>{1}));
}

BOOST_AUTO_TEST_CASE(a_full_pipe_queues_then_counts_missed_and_tells_in_the_next_frame) {
  Fixture f;
  ClientSession& slow = f.client("slow", 1000, {"", "event_space=FTB.X"}, /*queue_events=*/2);
  f.sink.full.insert("slow");
  f.router.publish(event("FTB.X", 1));
  f.router.publish(event("FTB.X", 2));
  f.router.flush();  // queued (an empty queue takes any frame)
  BOOST_TEST(slow.outbound.queuedEvents() == 2u);
  f.router.publish(event("FTB.X", 3));
  f.router.flush();  // does not fit: missed
  BOOST_TEST(slow.outbound.missedPending() == 1u);
  BOOST_TEST(slow.outbound.missedBySubscription().at(1) == 1u);
  BOOST_TEST(slow.outbound.missedBySubscription().at(2) == 1u);
  BOOST_TEST(f.counters.events_dropped() == 1u);
  BOOST_TEST(f.sink.sent.count("slow") == 0u);

  // The client reads again: the queue drains (here by hand, sendQueued is
  // below), and the next frame carries the count.
  f.sink.full.clear();
  while (!slow.outbound.empty()) slow.outbound.pop();
  f.router.publish(event("FTB.X", 4));
  f.router.flush();
  const auto frames = f.sink.delivers("slow");
  BOOST_TEST_REQUIRE(frames.size() == 1u);
  BOOST_TEST(frames[0].missed_before() == 1u);
  BOOST_TEST(frames[0].missed_size() == 2);
  BOOST_TEST(slow.outbound.missedPending() == 0u);
}

BOOST_AUTO_TEST_CASE(send_queued_drains_the_queue_in_order_then_tells_a_loss_on_its_own) {
  Fixture f;
  ClientSession& slow = f.client("slow", 1000, {""}, /*queue_events=*/2);
  f.sink.full.insert("slow");
  f.router.publish(event("FTB.X", 1));
  f.router.publish(event("FTB.X", 2));
  f.router.flush();  // one frame of two, queued
  f.router.publish(event("FTB.X", 3));
  f.router.flush();  // missed: no later frame will carry the count
  f.router.sendQueued();
  BOOST_TEST(f.sink.sent.count("slow") == 0u);  // still full: everything waits

  f.sink.full.clear();
  f.router.sendQueued();
  const auto frames = f.sink.delivers("slow");
  BOOST_TEST_REQUIRE(frames.size() == 2u);
  BOOST_TEST_REQUIRE(frames[0].deliveries_size() == 2);
  std::vector<uint64_t> seqs;
  for (const auto& d : frames[0].deliveries()) {
    proto::Event e;
    BOOST_REQUIRE(e.ParseFromString(d.event()));
    seqs.push_back(e.id().seq());
  }
  BOOST_TEST(seqs == (std::vector<uint64_t>{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(frames[1].deliveries_size() == 0);  // the notice alone
  BOOST_TEST(frames[1].missed_before() == 1u);
  BOOST_TEST_REQUIRE(frames[1].missed_size() == 1);
  BOOST_TEST(frames[1].missed(0).count() == 1u);
  BOOST_TEST(slow.outbound.empty());
  BOOST_TEST(slow.outbound.missedPending() == 0u);
  f.router.sendQueued();
  BOOST_TEST(f.sink.delivers("slow").size() == 2u);  // told once
}

BOOST_AUTO_TEST_CASE(a_departing_sessions_batch_is_dropped) {
  Fixture f;
  ClientSession& a = f.client("a", 1000, {""});
  f.router.publish(event("FTB.X", 1));
  f.router.forget(&a);
  f.router.flush();
  BOOST_TEST(f.sink.sent.empty());
}

BOOST_AUTO_TEST_CASE(a_replay_is_enqueued_under_the_given_subscription) {
  Fixture f;
  ClientSession& a = f.client("a", 1000, {});
  f.router.enqueue(a, event("FTB.X", 1), {7});
  f.router.flush();
  const auto frames = f.sink.delivers("a");
  BOOST_TEST_REQUIRE(frames.size() == 1u);
  BOOST_TEST(ids(frames[0].deliveries(0)) == (std::vector<uint32_t>{7}));
}
