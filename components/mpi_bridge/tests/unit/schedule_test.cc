// The multi-level checkpoint schedule (schedule.h): parsing FTBCKPT_SCHEDULE,
// which level is due when, the rule that an encoded level never runs more often
// than it completes, and the intervals "auto" derives by Young/Daly per level.
#define BOOST_TEST_MODULE schedule
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "components/mpi_bridge/schedule.h"

using namespace ftb::mpi_bridge;

namespace {

CheckpointSchedule fixed(const char* text, double start = 0) {
  auto spec = parseSchedule(text);
  BOOST_REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  return CheckpointSchedule(*spec, 0, start);
}

// Runs iterations 1..n one second apart, taking whatever is due at cost `cost`;
// returns the level taken at each iteration (0 = none).
std::vector<int> drive(CheckpointSchedule& s, long n, double cost = 0) {
  std::vector<int> taken;
  for (long i = 1; i <= n; ++i) {
    const double now = static_cast<double>(i);
    auto level = s.due(i, now, false);
    taken.push_back(level ? static_cast<int>(*level) : 0);
    if (level) s.taken(*level, i, now, cost);
  }
  return taken;
}

}  // namespace

BOOST_AUTO_TEST_CASE(parses_levels_by_iterations_and_by_seconds_lowest_first) {
  auto spec = parseSchedule("L5:300s,L1:10,l3:50");
  BOOST_REQUIRE(spec.ok());
  BOOST_CHECK(!spec->automatic);
  BOOST_REQUIRE_EQUAL(spec->levels.size(), 3u);
  BOOST_CHECK(spec->levels[0].level == Level::kL1);
  BOOST_CHECK_EQUAL(spec->levels[0].iterations, 10);
  BOOST_CHECK(spec->levels[1].level == Level::kL3);
  BOOST_CHECK_EQUAL(spec->levels[1].iterations, 50);
  BOOST_CHECK(spec->levels[2].level == Level::kL5);
  BOOST_CHECK_EQUAL(spec->levels[2].seconds, 300.0);
  BOOST_CHECK_EQUAL(spec->levels[2].iterations, 0);
}

BOOST_AUTO_TEST_CASE(parses_auto_with_and_without_levels) {
  auto plain = parseSchedule("auto");
  BOOST_REQUIRE(plain.ok());
  BOOST_CHECK(plain->automatic);
  BOOST_CHECK(plain->auto_levels.empty());
  auto listed = parseSchedule("auto:L5,L1");
  BOOST_REQUIRE(listed.ok());
  BOOST_REQUIRE_EQUAL(listed->auto_levels.size(), 2u);
  BOOST_CHECK(listed->auto_levels[0] == Level::kL1);
  BOOST_CHECK(listed->auto_levels[1] == Level::kL5);
}

BOOST_AUTO_TEST_CASE(refuses_bad_elements_naming_them) {
  for (const char* bad : {"", "L6:3", "L1", "L1:0", "L1:x", "L1:3,L1:4", "L2:-1", "L3:s", "auto:L2,L2", "auto:L9"}) {
    auto spec = parseSchedule(bad);
    BOOST_CHECK_MESSAGE(!spec.ok(), "accepted '" << bad << "'");
    if (!spec.ok()) {
      BOOST_CHECK(spec.status().code() == ftb::Code::kInvalidArgument);
      BOOST_CHECK_MESSAGE(spec.status().message().find("FTBCKPT_SCHEDULE") != std::string::npos,
                          spec.status().message());
    }
  }
}

BOOST_AUTO_TEST_CASE(the_highest_due_level_is_taken_and_counts_for_the_levels_below) {
  auto s = fixed("L1:2,L3:6");
  // L3 at 6 and 12 also resets L1: L1 comes 2 iterations after each of them.
  BOOST_TEST(drive(s, 14) == (std::vector<int>{0, 1, 0, 1, 0, 3, 0, 1, 0, 1, 0, 3, 0, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_level_by_seconds_is_due_once_its_interval_has_passed) {
  auto s = fixed("L3:10s", 100);
  BOOST_CHECK(!s.due(1, 109.9, false));
  BOOST_REQUIRE(s.due(1, 110, false));
  BOOST_CHECK(*s.due(1, 110, false) == Level::kL3);
  s.taken(Level::kL3, 1, 110.5, 0.5);
  BOOST_CHECK(!s.due(2, 120.4, false));
  BOOST_CHECK(s.due(2, 120.5, false));
}

BOOST_AUTO_TEST_CASE(an_encoded_level_never_runs_more_often_than_it_completes) {
  auto s = fixed("L3:1s");
  s.taken(Level::kL3, 1, 10, 5);  // it took 5 s
  BOOST_CHECK(!s.due(2, 12, false));
  BOOST_CHECK(!s.due(3, 14.9, false));
  BOOST_CHECK(s.due(4, 15, false));
  auto choices = s.choices(15);
  BOOST_REQUIRE_EQUAL(choices.size(), 1u);
  BOOST_CHECK_EQUAL(choices[0].seconds, 5.0);
  BOOST_CHECK_MESSAGE(choices[0].why.find("stretched") != std::string::npos, choices[0].why);
}

BOOST_AUTO_TEST_CASE(a_background_checkpoint_still_completing_defers_encoded_levels_not_l1) {
  auto s = fixed("L1:1,L4:2");
  auto busy = s.due(2, 2, /*background_busy=*/true);
  BOOST_REQUIRE(busy);
  BOOST_CHECK(*busy == Level::kL1);
  auto idle = s.due(2, 2, false);
  BOOST_REQUIRE(idle);
  BOOST_CHECK(*idle == Level::kL4);
}

BOOST_AUTO_TEST_CASE(auto_measures_each_level_cheapest_first_then_uses_young_daly) {
  ScheduleSpec spec = *parseSchedule("auto:L1,L3");
  CheckpointSchedule s(spec, /*prior_mtbf_seconds=*/3600, /*start=*/0);
  auto first = s.due(1, 1, false);
  BOOST_REQUIRE(first);
  BOOST_CHECK(*first == Level::kL1);
  s.taken(Level::kL1, 1, 1, 0.5);
  auto second = s.due(2, 2, false);
  BOOST_REQUIRE(second);
  BOOST_CHECK(*second == Level::kL3);
  s.taken(Level::kL3, 2, 2, 2.0);
  BOOST_CHECK(!s.due(3, 3, false));

  // Daly's estimate, to first order Young's sqrt(2 C M).
  const auto choices = s.choices(2);
  BOOST_REQUIRE_EQUAL(choices.size(), 2u);
  const double m = s.mtbf(FailureScope::kNode, 2);
  BOOST_CHECK_CLOSE(m, 3602.0, 1e-9);
  BOOST_CHECK_GT(choices[1].seconds, std::sqrt(2 * 2.0 * m) - 2.0);
  BOOST_CHECK_LT(choices[1].seconds, std::sqrt(2 * 2.0 * m) * 1.05);
  BOOST_CHECK_LT(choices[0].seconds, choices[1].seconds);  // cheaper level, shorter interval
  BOOST_CHECK_MESSAGE(choices[1].why.find("Young/Daly") != std::string::npos, choices[1].why);

  // L3 becomes due once its interval has passed since it was taken (the
  // estimate of M grows a little with the time passed without failures).
  auto early = s.due(100, 2 + 0.9 * choices[1].seconds, false);
  BOOST_CHECK(!early || *early == Level::kL1);
  auto later = s.due(100, 2 + 1.2 * choices[1].seconds, false);
  BOOST_REQUIRE(later);
  BOOST_CHECK(*later == Level::kL3);
}

BOOST_AUTO_TEST_CASE(observed_failures_shorten_the_intervals_of_the_levels_they_concern) {
  ScheduleSpec spec = *parseSchedule("auto:L1,L3,L5");
  CheckpointSchedule s(spec, 3600, 0);
  s.taken(Level::kL1, 1, 1, 0.5);
  s.taken(Level::kL3, 2, 2, 2.0);
  s.taken(Level::kL5, 3, 3, 8.0);
  const auto before = s.choices(3);
  s.failureObserved(FailureScope::kProcess);  // a process died: only L1 is there for that
  const auto after_process = s.choices(3);
  BOOST_CHECK_LT(after_process[0].seconds, before[0].seconds);
  BOOST_CHECK_EQUAL(after_process[1].seconds, before[1].seconds);
  BOOST_CHECK_EQUAL(after_process[2].seconds, before[2].seconds);
  s.failureObserved(FailureScope::kNode);  // a node loss also kills processes
  const auto after_node = s.choices(3);
  BOOST_CHECK_LT(after_node[0].seconds, after_process[0].seconds);
  BOOST_CHECK_LT(after_node[1].seconds, before[1].seconds);
  BOOST_CHECK_EQUAL(after_node[2].seconds, before[2].seconds);
  // Time without failures lengthens them again.
  BOOST_CHECK_GT(s.mtbf(FailureScope::kNode, 36000), s.mtbf(FailureScope::kNode, 3));
}

BOOST_AUTO_TEST_CASE(the_failure_history_reads_each_kind_and_refuses_anything_else) {
  auto h = parseFailureHistory("process:2,node:5");
  BOOST_REQUIRE_MESSAGE(h.ok(), h.status().message());
  BOOST_CHECK_EQUAL(h->process, 2);
  BOOST_CHECK_EQUAL(h->node, 5);
  auto only_nodes = parseFailureHistory("node:1");
  BOOST_REQUIRE(only_nodes.ok());
  BOOST_CHECK_EQUAL(only_nodes->process, 0);
  BOOST_CHECK_EQUAL(only_nodes->node, 1);
  BOOST_CHECK(parseFailureHistory("").ok());
  for (const char* bad : {"process:", "process:-1", "process:2x", "disk:1", "process:1,,node:2", "node"}) {
    auto r = parseFailureHistory(bad);
    BOOST_TEST_CONTEXT(bad) {
      BOOST_REQUIRE(!r.ok());
      BOOST_CHECK(r.status().code() == ftb::Code::kInvalidArgument);
      BOOST_CHECK_NE(r.status().message().find("FTB_FAILURES"), std::string::npos);
    }
  }
}
