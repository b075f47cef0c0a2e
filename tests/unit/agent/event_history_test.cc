#define BOOST_TEST_MODULE event_history
#include <boost/test/unit_test.hpp>

#include <memory>

#include "agent/routing/event_history.h"
#include "client/filter.h"

using ftb::agent::EventHistory;
using ftb::agent::RoutedEvent;
using ftb::agent::RoutedEventPtr;
using ftb::agent::sameEventId;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::now();
constexpr std::size_t kUnbounded = SIZE_MAX;  // no byte bound

ftb::proto::EventId idOf(uint64_t seq, uint32_t instance = 1, std::string host = "node1") {
  ftb::proto::EventId id;
  id.mutable_origin()->set_host(std::move(host));
  id.mutable_origin()->set_pid(100);
  id.mutable_origin()->set_process_start_ns(5);
  id.set_client_instance(instance);
  id.set_seq(seq);
  return id;
}

// Event `seq` of publisher `instance`, named A when seq is even, B when odd.
RoutedEventPtr event(uint64_t seq, Clock::time_point arrived = kT0, uint32_t instance = 1) {
  auto e = std::make_shared<RoutedEvent>();
  e->event.set_event_space("FTB.TEST");
  e->event.set_event_name(seq % 2 == 0 ? "A" : "B");
  e->event.set_severity(ftb::proto::INFO);
  *e->event.mutable_id() = idOf(seq, instance);
  e->bytes = std::make_shared<const std::string>(e->event.SerializeAsString());
  e->arrived = arrived;
  return e;
}

ftb::Filter filter(std::string_view text) {
  auto f = ftb::Filter::parse(text);
  BOOST_REQUIRE_MESSAGE(f.ok(), f.status().toString());
  return *f;
}

std::vector<uint64_t> seqs(const std::vector<RoutedEventPtr>& events) {
  std::vector<uint64_t> out;
  for (const auto& e : events) out.push_back(e->event.id().seq());
  return out;
}

using Seqs = std::vector<uint64_t>;

}  // namespace

BOOST_AUTO_TEST_CASE(keeps_at_most_max_events_dropping_the_oldest) {
  EventHistory h(3, kUnbounded, 3600s);
  for (uint64_t s = 1; s <= 5; ++s) h.add(event(s));
  BOOST_CHECK_EQUAL(h.size(), 3u);
  BOOST_CHECK(seqs(h.lastN(10, filter(""))) == (Seqs{3, 4, 5}));
}

BOOST_AUTO_TEST_CASE(zero_capacity_disables_history) {
  EventHistory h(0, kUnbounded, 3600s);
  h.add(event(1));
  BOOST_CHECK_EQUAL(h.size(), 0u);
  BOOST_CHECK(h.lastN(10, filter("")).empty());
  bool found = true;
  BOOST_CHECK(h.since(idOf(1), filter(""), &found).empty());
  BOOST_CHECK(!found);
}

BOOST_AUTO_TEST_CASE(last_n_returns_the_newest_matching_oldest_first) {
  EventHistory h(100, kUnbounded, 3600s);
  for (uint64_t s = 1; s <= 10; ++s) h.add(event(s));
  BOOST_CHECK(seqs(h.lastN(3, filter(""))) == (Seqs{8, 9, 10}));
  BOOST_CHECK(seqs(h.lastN(3, filter("event_name=A"))) == (Seqs{6, 8, 10}));
  BOOST_CHECK(seqs(h.lastN(100, filter("event_name=B"))) == (Seqs{1, 3, 5, 7, 9}));
  BOOST_CHECK(h.lastN(0, filter("")).empty());
  BOOST_CHECK(h.lastN(5, filter("event_name=C")).empty());
}

BOOST_AUTO_TEST_CASE(since_returns_what_arrived_after_the_event) {
  EventHistory h(100, kUnbounded, 3600s);
  for (uint64_t s = 1; s <= 10; ++s) h.add(event(s));
  bool found = false;
  BOOST_CHECK(seqs(h.since(idOf(7), filter(""), &found)) == (Seqs{8, 9, 10}));
  BOOST_CHECK(found);
  BOOST_CHECK(seqs(h.since(idOf(1), filter("event_name=A"), &found)) == (Seqs{2, 4, 6, 8, 10}));
  BOOST_CHECK(found);
  // The newest: nothing after it, and that is a complete answer.
  BOOST_CHECK(h.since(idOf(10), filter(""), &found).empty());
  BOOST_CHECK(found);
}

BOOST_AUTO_TEST_CASE(since_an_event_the_filter_does_not_match) {
  EventHistory h(100, kUnbounded, 3600s);
  for (uint64_t s = 1; s <= 6; ++s) h.add(event(s));
  bool found = false;
  // Event 3 is a B; the replay of A events after it is still anchored on it.
  BOOST_CHECK(seqs(h.since(idOf(3), filter("event_name=A"), &found)) == (Seqs{4, 6}));
  BOOST_CHECK(found);
}

BOOST_AUTO_TEST_CASE(since_an_unknown_or_evicted_event_returns_everything_and_says_so) {
  EventHistory h(4, kUnbounded, 3600s);
  for (uint64_t s = 1; s <= 6; ++s) h.add(event(s));  // keeps 3..6
  bool found = true;
  BOOST_CHECK(seqs(h.since(idOf(1), filter(""), &found)) == (Seqs{3, 4, 5, 6}));
  BOOST_CHECK(!found);
  found = true;
  BOOST_CHECK(seqs(h.since(idOf(99), filter("event_name=A"), &found)) == (Seqs{4, 6}));
  BOOST_CHECK(!found);
  // Same sequence number, another client instance: a different event.
  found = true;
  BOOST_CHECK_EQUAL(h.since(idOf(5, /*instance=*/2), filter(""), &found).size(), 4u);
  BOOST_CHECK(!found);
}

BOOST_AUTO_TEST_CASE(since_spans_publishers_in_arrival_order) {
  EventHistory h(100, kUnbounded, 3600s);
  h.add(event(1, kT0, 1));
  h.add(event(1, kT0, 2));
  h.add(event(2, kT0, 1));
  h.add(event(2, kT0, 2));
  bool found = false;
  auto after = h.since(idOf(1, 2), filter(""), &found);
  BOOST_CHECK(found);
  BOOST_REQUIRE_EQUAL(after.size(), 2u);
  BOOST_CHECK(sameEventId(after[0]->event.id(), idOf(2, 1)));
  BOOST_CHECK(sameEventId(after[1]->event.id(), idOf(2, 2)));
}

BOOST_AUTO_TEST_CASE(prune_drops_events_older_than_max_age) {
  EventHistory h(100, kUnbounded, 10s);
  h.add(event(1, kT0));
  h.add(event(2, kT0 + 5s));
  h.add(event(3, kT0 + 9s));
  h.prune(kT0 + 10s);  // event 1 is exactly 10 s old: kept
  BOOST_CHECK_EQUAL(h.size(), 3u);
  h.prune(kT0 + 15s + 1ms);  // 1 and 2 are older than 10 s
  BOOST_CHECK(seqs(h.lastN(10, filter(""))) == (Seqs{3}));
  h.prune(kT0 + 1h);
  BOOST_CHECK_EQUAL(h.size(), 0u);
  h.prune(kT0 + 2h);  // on an empty history
  BOOST_CHECK_EQUAL(h.size(), 0u);
}

BOOST_AUTO_TEST_CASE(same_event_id_compares_every_field) {
  const ftb::proto::EventId a = idOf(7);
  BOOST_CHECK(sameEventId(a, idOf(7)));
  BOOST_CHECK(!sameEventId(a, idOf(8)));
  BOOST_CHECK(!sameEventId(a, idOf(7, 2)));
  BOOST_CHECK(!sameEventId(a, idOf(7, 1, "node2")));
  ftb::proto::EventId b = a;
  b.mutable_origin()->set_pid(101);
  BOOST_CHECK(!sameEventId(a, b));
  b = a;
  b.mutable_origin()->set_process_start_ns(6);
  BOOST_CHECK(!sameEventId(a, b));
}

// ---- bounds by memory, and the bytes kept once

BOOST_AUTO_TEST_CASE(byte_bound_drops_the_oldest_until_the_retained_cost_fits) {
  const std::size_t cost = ftb::agent::retainedCost(event(1)->bytes.get());
  // Room for three events of this size (all are the same size: same fields,
  // one-digit sequence numbers), not four.
  EventHistory h(100, 3 * cost + cost / 2, 3600s);
  for (uint64_t s = 1; s <= 7; ++s) h.add(event(s));
  BOOST_CHECK(seqs(h.lastN(10, filter(""))) == (Seqs{5, 6, 7}));
  BOOST_CHECK_EQUAL(h.retainedBytes(), 3 * cost);
  bool found = true;
  BOOST_CHECK(seqs(h.since(idOf(4), filter(""), &found)) == (Seqs{5, 6, 7}));
  BOOST_CHECK(!found);  // evicted by the byte bound: reported as not retained
}

BOOST_AUTO_TEST_CASE(zero_bytes_disables_history) {
  EventHistory h(100, 0, 3600s);
  h.add(event(1));
  BOOST_CHECK_EQUAL(h.size(), 0u);
  BOOST_CHECK_EQUAL(h.retainedBytes(), 0u);
}

BOOST_AUTO_TEST_CASE(retained_cost_follows_adds_prunes_and_new_limits) {
  EventHistory h(100, kUnbounded, 10s);
  std::size_t expected = 0;
  for (uint64_t s = 1; s <= 12; ++s) {
    RoutedEventPtr e = event(s, kT0 + std::chrono::seconds(s));
    expected += ftb::agent::retainedCost(e->bytes.get());
    h.add(e);
  }
  BOOST_CHECK_EQUAL(h.retainedBytes(), expected);
  h.prune(kT0 + 13s);  // 1 and 2 are older than 10 s
  BOOST_CHECK(seqs(h.lastN(2, filter(""))) == (Seqs{11, 12}));
  BOOST_CHECK_EQUAL(h.size(), 10u);
  const std::size_t cost_of_12 = ftb::agent::retainedCost(event(12)->bytes.get());
  h.setLimits(100, cost_of_12, 10s);  // room for the newest only
  BOOST_CHECK(seqs(h.lastN(10, filter(""))) == (Seqs{12}));
  BOOST_CHECK_EQUAL(h.retainedBytes(), cost_of_12);
  h.prune(kT0 + 1h);
  BOOST_CHECK_EQUAL(h.retainedBytes(), 0u);
}

BOOST_AUTO_TEST_CASE(keeps_the_routed_bytes_not_a_copy_nor_the_parsed_event) {
  EventHistory h(100, kUnbounded, 3600s);
  RoutedEventPtr e = event(1);
  std::weak_ptr<const RoutedEvent> parsed = e;
  const ftb::agent::SharedBytes bytes = e->bytes;
  h.add(e);
  e.reset();
  BOOST_CHECK(parsed.expired());  // the parsed event went when routing was done
  auto replay = h.lastN(1, filter(""));
  BOOST_REQUIRE_EQUAL(replay.size(), 1u);
  BOOST_CHECK_EQUAL(replay[0]->bytes.get(), bytes.get());  // the same buffer
  BOOST_CHECK(sameEventId(replay[0]->event.id(), idOf(1)));
}
