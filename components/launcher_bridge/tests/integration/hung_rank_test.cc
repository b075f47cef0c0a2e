// A hung rank, end to end, with a real agent and mpirun on this machine: rank 1
// of the stencil busy-loops for good in its own code at iteration 25. Its
// runtime's watchdog announces it (FTB_MPI_RANK_HUNG, where=application, with
// its stack); ftb-run's default `replace` rule ends it through the backplane
// (FTB_TERMINATE_RANK, obeyed by the rank's SDK thread); its last will then
// restarts the run in place from L1, and the answer is the undisturbed run's,
// bit for bit. Rank 0, which waits in MPI for rank 1 meanwhile, is never
// called hung.
#define BOOST_TEST_MODULE launcher_hung_rank
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <cstdlib>

#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"
#include "components/mpi_bridge/testing/mpi_job.h"
#include "tests/support/event_collector.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::testing::FtbRunFixture;
using ftb::launcher::testing::tag;
using ftb::testing::runfile;

namespace {

std::string resultLine(const std::string& log) {
  const auto at = log.find("RESULT ");
  return at == std::string::npos ? "" : log.substr(at, log.find('\n', at) - at);
}

std::vector<std::string> job(const std::string& id, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--job", id, "--nodes", "localhost", "--spares", "127.0.0.1", "--ranks-per-node", "2",
                                "--", runfile("components/mpi_bridge/examples/stencil"), "--iterations", "60",
                                "--checkpoint-every", "10", "--iteration-ms", "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

struct Setup : FtbRunFixture {
  Setup() { wipe(); }
  ~Setup() { wipe(); }
  static void wipe() {
    for (const char* id : {"HREF", "HANG"}) ftb::mpi_bridge::testing::wipeJobMemory(id);
  }
  int finish(pid_t pid, const std::string& name) {
    auto code = waitExit(pid, 180000);
    if (!code) ::kill(pid, SIGKILL);
    BOOST_TEST_INFO(name << ":\n" << log(name));
    BOOST_REQUIRE(code);
    return *code;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_hung_rank_is_announced_ended_and_the_job_recovers_bit_exact) {
  Setup s;
  ftb::testing::EventCollector story(s.agent.ipcEndpoint(), "event_space=FTB.JL.HANG|FTB.MPI.FTBCKPT");
  BOOST_REQUIRE_EQUAL(s.finish(s.start(job("HREF", {}), "ref.log"), "ref.log"), 0);
  const std::string expected = resultLine(s.log("ref.log"));
  BOOST_REQUIRE(!expected.empty());

  const pid_t run = s.start(job("HANG", {"--hang-at", "25"}), "run.log");
  const int code = s.finish(run, "run.log");
  const std::string log = s.log("run.log");
  BOOST_REQUIRE_MESSAGE(code == 0, "ftb-run exited " << code << ":\n" << log);
  BOOST_TEST(log.find("stencil: rank 1 hangs at iteration 25") != std::string::npos, log);
  BOOST_TEST(resultLine(log) == expected, log);
  BOOST_TEST(log.find("did not end within") == std::string::npos, log);  // ended as told, not by the fallback

  const auto hung = story.waitFor(
      [](const Event& e) { return e.event_name == "FTB_MPI_RANK_HUNG" && e.job_id == "HANG"; }, 20s);
  BOOST_REQUIRE_MESSAGE(hung, "no FTB_MPI_RANK_HUNG:\n" << log);
  BOOST_TEST(tag(*hung, "rank") == "1");
  BOOST_TEST(tag(*hung, "where") == "application");
  BOOST_TEST(!tag(*hung, "stack").empty());
  BOOST_TEST(tag(*hung, "iteration") == "25");
  BOOST_TEST(std::atol(tag(*hung, "stalled_ms").c_str()) > std::atol(tag(*hung, "bound_ms").c_str()));
  BOOST_TEST(std::atol(tag(*hung, "bound_ms").c_str()) >= 1000);  // the floor

  const auto decision = story.waitFor(
      [](const Event& e) { return e.event_name == "FTB_DECISION" && tag(e, "action") == "replace"; }, 20s);
  BOOST_REQUIRE_MESSAGE(decision, "no replace decision:\n" << log);
  BOOST_TEST(tag(*decision, "ranks") == "1");
  const auto terminate = story.waitFor(
      [&](const Event& e) { return e.event_name == "FTB_TERMINATE_RANK" && tag(e, "corr") == tag(*decision, "corr"); },
      20s);
  BOOST_REQUIRE_MESSAGE(terminate, "no FTB_TERMINATE_RANK:\n" << log);
  BOOST_TEST(tag(*terminate, "rank") == "1");
  BOOST_TEST(tag(*terminate, "pid") == tag(*hung, "pid"));
  const auto death = story.waitFor(
      [&](const Event& e) { return e.event_name == "FTB_MPI_PROCS_DEAD" && tag(e, "pid") == tag(*hung, "pid"); }, 20s);
  BOOST_TEST(death.has_value(), "the hung process left no last will");
  BOOST_TEST(story
                 .waitFor([](const Event& e) { return e.event_name == "FTB_DECISION" && tag(e, "action") == "restart"; },
                          20s)
                 .has_value());
  // Rank 0 waited in MPI_Sendrecv for rank 1: at most "waiting", never "hung".
  BOOST_TEST(!story
                  .waitFor([](const Event& e) { return e.event_name == "FTB_MPI_RANK_HUNG" && tag(e, "rank") == "0"; },
                           0ms)
                  .has_value());
  if (auto waiting = story.waitFor([](const Event& e) { return e.event_name == "FTB_MPI_RANK_WAITING"; }, 0ms)) {
    BOOST_TEST(tag(*waiting, "where") == "mpi");
  }
}
