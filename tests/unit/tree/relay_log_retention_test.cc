// The RelayLog's replay window: bounded by count, by bytes and by age, replayed
// oldest first with the bytes the agent shares (never a copy), and what it no
// longer retains reported as gone.
#define BOOST_TEST_MODULE tree_relay_log_retention
#include <boost/test/unit_test.hpp>

#include <memory>

#include "agent/tree/relay_log.h"
#include "tests/unit/tree/tree_test_events.h"

using namespace ftb::tree;
using namespace ftb::tree::testing;
using namespace std::chrono_literals;

namespace {

InterestMatcher everything() {
  InterestMatcher m;
  m.assign({""});
  return m;
}

// Event `seq` of `publisher` carrying `size` bytes.
TreeEvent withBytes(uint64_t seq, std::size_t size, std::string publisher = "p") {
  TreeEvent e = ev(seq, std::move(publisher));
  e.bytes = std::make_shared<const std::string>(size, 'x');
  return e;
}

std::vector<SeqRange> goneOf(const Replay& replay, const std::string& publisher) {
  for (const GoneEntry& g : replay.gone) {
    if (g.publisher == publisher) return g.ranges;
  }
  return {};
}

// What a side that saw nothing of "p" after `high` is replayed.
Replay replayAfter(const RelayLog& log, uint64_t high) {
  return log.missing(everything(), {{"p", high, {}}}, 1s, 0s, "them");
}

}  // namespace

BOOST_AUTO_TEST_CASE(count_bound_keeps_the_newest_and_reports_the_rest_gone) {
  RelayLog log(3, 60s);
  for (uint64_t s = 1; s <= 8; ++s) BOOST_CHECK(log.admit(ev(s), "a", 0s));
  BOOST_CHECK_EQUAL(log.retained(), 3u);
  const Replay out = replayAfter(log, 2);
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{6, 7, 8}));
  BOOST_CHECK((goneOf(out, "p") == std::vector<SeqRange>{{3, 5}}));
}

BOOST_AUTO_TEST_CASE(byte_bound_keeps_what_fits_and_reports_the_rest_gone) {
  const std::size_t cost = 100 + RelayLog::kRetainedOverhead;
  RelayLog log(1000, 60s, 4 * cost + cost / 2);  // room for four 100-byte events
  for (uint64_t s = 1; s <= 10; ++s) log.admit(withBytes(s, 100), "a", 0s);
  BOOST_CHECK_EQUAL(log.retained(), 4u);
  BOOST_CHECK_EQUAL(log.retainedBytes(), 4 * cost);
  const Replay out = replayAfter(log, 0);
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{7, 8, 9, 10}));
  BOOST_CHECK((goneOf(out, "p") == std::vector<SeqRange>{{1, 6}}));
  // A big event pushes out as many small ones as it needs.
  log.admit(withBytes(11, 250), "a", 0s);
  BOOST_CHECK((seqs(replayAfter(log, 0).events) == std::vector<uint64_t>{9, 10, 11}));
  BOOST_CHECK_EQUAL(log.retainedBytes(), 2 * cost + 250 + RelayLog::kRetainedOverhead);
}

BOOST_AUTO_TEST_CASE(zero_bytes_retains_nothing_but_still_drops_duplicates) {
  RelayLog log(1000, 60s, 0);
  BOOST_CHECK(log.admit(withBytes(1, 10), "a", 0s));
  BOOST_CHECK(!log.admit(withBytes(1, 10), "b", 0s));
  BOOST_CHECK_EQUAL(log.retained(), 0u);
  BOOST_CHECK((goneOf(replayAfter(log, 0), "p") == std::vector<SeqRange>{{1, 1}}));
}

BOOST_AUTO_TEST_CASE(age_bound_prunes_and_gives_back_the_bytes) {
  RelayLog log(1000, 10s, 1 << 20);
  log.admit(withBytes(1, 50), "a", 0s);
  log.admit(withBytes(2, 60), "a", 5s);
  log.admit(withBytes(3, 70), "a", 9s);
  log.prune(10s);  // event 1 is exactly 10 s old: kept
  BOOST_CHECK_EQUAL(log.retained(), 3u);
  log.prune(15s + 1ms);
  BOOST_CHECK((seqs(replayAfter(log, 0).events) == std::vector<uint64_t>{3}));
  BOOST_CHECK_EQUAL(log.retainedBytes(), 70 + RelayLog::kRetainedOverhead);
  log.prune(1h);
  BOOST_CHECK_EQUAL(log.retained(), 0u);
  BOOST_CHECK_EQUAL(log.retainedBytes(), 0u);
}

BOOST_AUTO_TEST_CASE(replays_share_the_bytes_and_keep_publisher_namespace_and_order) {
  RelayLog log(100, 60s);
  std::vector<TreeEvent> admitted;
  for (uint64_t s = 1; s <= 3; ++s) {
    admitted.push_back(withBytes(s, 20, "p"));
    admitted.push_back(withBytes(s, 20, "q"));
  }
  admitted.push_back(ev(4, "r", "FTB.Y"));  // no bytes (as in the simulator)
  admitted.back().flood = true;
  for (const TreeEvent& e : admitted) log.admit(e, "a", 0s);
  const Replay out = log.missing(everything(), {}, 1s, 0s, "them");  // they saw nothing
  BOOST_REQUIRE_EQUAL(out.events.size(), admitted.size());
  for (std::size_t i = 0; i < admitted.size(); ++i) {
    BOOST_CHECK_EQUAL(out.events[i].publisher, admitted[i].publisher);
    BOOST_CHECK_EQUAL(out.events[i].seq, admitted[i].seq);
    BOOST_CHECK_EQUAL(out.events[i].event_space, admitted[i].event_space);
    BOOST_CHECK_EQUAL(out.events[i].flood, admitted[i].flood);
    BOOST_CHECK_EQUAL(out.events[i].bytes.get(), admitted[i].bytes.get());  // the same buffer
  }
}

BOOST_AUTO_TEST_CASE(events_from_the_asking_link_are_not_replayed_to_it) {
  RelayLog log(100, 60s);
  log.admit(ev(1), "them", 0s);
  log.admit(ev(2), "other", 0s);
  log.admit(ev(3), "them", 0s);
  log.prune(1s);  // interned link names survive while events refer to them
  const Replay out = log.missing(everything(), {{"p", 0, {}}}, 1s, 1s, "them");
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{2}));
}

BOOST_AUTO_TEST_CASE(fill_takes_retained_events_and_reports_evicted_ones_gone) {
  RelayLog log(3, 60s);
  for (uint64_t s = 1; s <= 6; ++s) log.admit(ev(s), "a", 0s);  // keeps 4..6
  SeenVector wanted{{"p", 6, {{2, 5}}}};
  const Replay out = log.fill(wanted);
  BOOST_CHECK((seqs(out.events) == std::vector<uint64_t>{4, 5}));
  BOOST_CHECK((goneOf(out, "p") == std::vector<SeqRange>{{2, 3}}));
  BOOST_CHECK(wanted[0].holes.empty());
}
