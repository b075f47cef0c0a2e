#define BOOST_TEST_MODULE death_window
#include <boost/test/unit_test.hpp>

#include "components/launcher_bridge/death_window.h"

using namespace std::chrono_literals;
using ftb::launcher::DeathWindow;

namespace {

ftb::Event death(const std::string& node, int rank, int32_t nsec = 0, const std::string& attempt = "0",
                 const std::string& job = "J7") {
  ftb::Event e;
  e.event_space = "FTB.MPI.FTBCKPT";
  e.event_name = "FTB_MPI_PROCS_DEAD";
  e.time_sec = 1000;
  e.time_nsec = nsec;
  e.tags = {{"host", node}, {"node", node}, {"rank", std::to_string(rank)}, {"job", job}, {"attempt", attempt}};
  return e;
}

const DeathWindow::TimePoint t0{std::chrono::seconds(100)};
const std::set<std::string> kJob = {"n1", "n2", "n3"};

}  // namespace

BOOST_AUTO_TEST_CASE(a_rank_death_and_the_teardown_from_every_node_settle_at_once_on_the_earliest) {
  DeathWindow w(100ms);
  BOOST_TEST(!w.open());
  BOOST_TEST(!w.add(death("n1", 0, 9000), "J7", 0, t0));  // arrives first, died later
  BOOST_TEST(!w.add(death("n2", 2, 1000), "J7", 0, t0 + 1ms));
  BOOST_TEST(!w.due(t0 + 2ms, kJob));  // n3 has not reported yet
  BOOST_TEST(!w.add(death("n3", 4, 8000), "J7", 0, t0 + 3ms));
  BOOST_TEST(w.due(t0 + 3ms, kJob));  // every node reported: no need to wait longer
  std::string why;
  auto e = w.settle(kJob, &why);
  BOOST_REQUIRE(e.has_value());
  BOOST_TEST(e->tags.at("rank") == "2");
  BOOST_TEST(!w.open());
}

BOOST_AUTO_TEST_CASE(a_silent_node_is_left_to_the_exit_path_when_the_window_passes) {
  DeathWindow w(100ms);
  BOOST_TEST(!w.add(death("n1", 0), "J7", 0, t0));
  BOOST_TEST(!w.add(death("n2", 2), "J7", 0, t0 + 3ms));
  BOOST_TEST(!w.due(t0 + 99ms, kJob));
  BOOST_TEST(w.due(t0 + 100ms, kJob));  // from the first death, not extended by later ones
  std::string why;
  BOOST_TEST(!w.settle(kJob, &why).has_value());
  BOOST_TEST(why.find("none from node(s) n3") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(deaths_of_another_job_or_an_earlier_run_are_not_taken) {
  DeathWindow w(100ms);
  auto other = w.add(death("n1", 0, 0, "0", "J8"), "J7", 0, t0);
  BOOST_REQUIRE(other.has_value());
  BOOST_TEST(other->find("job J8") != std::string::npos);
  auto old = w.add(death("n1", 0, 0, "1"), "J7", 2, t0);
  BOOST_REQUIRE(old.has_value());
  BOOST_TEST(old->find("run 1 (now 2)") != std::string::npos);
  ftb::Event nowhere = death("n1", 0);
  nowhere.tags.erase("host");
  nowhere.tags.erase("node");
  BOOST_TEST(w.add(nowhere, "J7", 0, t0).has_value());
  BOOST_TEST(!w.open());
}
