#define BOOST_TEST_MODULE death_window
#include <boost/test/unit_test.hpp>

#include "components/launcher_bridge/death_window.h"

using namespace std::chrono_literals;
using ftb::launcher::DeathWindow;

namespace {

ftb::Event death(const std::string& node, int rank, const std::string& attempt = "0",
                 const std::string& job = "J7") {
  ftb::Event e;
  e.event_space = "FTB.MPI.FTBCKPT";
  e.event_name = "FTB_MPI_PROCS_DEAD";
  e.tags = {{"host", node}, {"node", node}, {"rank", std::to_string(rank)}, {"job", job}, {"attempt", attempt}};
  return e;
}

const DeathWindow::TimePoint t0{std::chrono::seconds(100)};

}  // namespace

BOOST_AUTO_TEST_CASE(deaths_on_one_node_are_acted_on_when_the_window_closes) {
  DeathWindow w(50ms);
  BOOST_TEST(!w.open());
  BOOST_TEST(!w.add(death("n2", 2), "J7", 0, t0));
  BOOST_TEST(!w.add(death("n2", 3), "J7", 0, t0 + 10ms));
  BOOST_TEST(!w.due(t0 + 49ms));
  BOOST_TEST(w.due(t0 + 50ms));  // from the first death, not extended by later ones
  std::string why;
  auto e = w.settle(&why);
  BOOST_REQUIRE(e.has_value());
  BOOST_TEST(e->tags.at("rank") == "2");
  BOOST_TEST(!w.open());
}

BOOST_AUTO_TEST_CASE(deaths_on_several_nodes_are_teardown_not_evidence) {
  DeathWindow w(50ms);
  BOOST_TEST(!w.add(death("n1", 0), "J7", 0, t0));
  BOOST_TEST(!w.add(death("n2", 2), "J7", 0, t0 + 3ms));
  std::string why;
  BOOST_TEST(!w.settle(&why).has_value());
  BOOST_TEST(why.find("2 ranks died on 2 nodes (n1,n2)") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(deaths_of_another_job_or_an_earlier_run_are_not_taken) {
  DeathWindow w(50ms);
  auto other = w.add(death("n1", 0, "0", "J8"), "J7", 0, t0);
  BOOST_REQUIRE(other.has_value());
  BOOST_TEST(other->find("job J8") != std::string::npos);
  auto old = w.add(death("n1", 0, "1"), "J7", 2, t0);
  BOOST_REQUIRE(old.has_value());
  BOOST_TEST(old->find("run 1 (now 2)") != std::string::npos);
  ftb::Event nowhere = death("n1", 0);
  nowhere.tags.erase("host");
  nowhere.tags.erase("node");
  BOOST_TEST(w.add(nowhere, "J7", 0, t0).has_value());
  BOOST_TEST(!w.open());
}
