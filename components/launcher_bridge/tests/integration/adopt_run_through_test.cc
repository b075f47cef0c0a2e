// ftb-run killed while it holds a rank's death for a run-through recovery: the
// journal keeps the hold (its deadline, the will, the runtime's id) and the id
// of the last event handled, so `ftb-run --adopt` holds on where it left off
// and first replays, from the agent's history, what the runtime published
// while no ftb-run was watching. The job is not relaunched: the adopter tells
// the recovery's story (decision, running, failure totals) under the runtime's
// correlation id, and the job runs to its end.
//
// Real agent, ftb-run, mpirun (Debian 12's Open MPI) and stencil ranks. The
// run-through itself needs ULFM (Open MPI 5, the trixie root of tests/ulfm,
// where it is tested end to end): here the test publishes what a rank's agent
// and the runtime would (the will, FTB_RUN_THROUGH detected and computing) in
// their namespace, and mpirun is called through a wrapper that drops the
// `--with-ft ulfm` this Open MPI does not know.
#define BOOST_TEST_MODULE launcher_adopt_run_through
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>

#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"
#include "components/mpi_bridge/testing/connected_ranks.h"
#include "tests/support/event_collector.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::testing::FtbRunFixture;
using ftb::launcher::testing::named;
using ftb::launcher::testing::tag;
using ftb::testing::runfile;

namespace {

constexpr char kJob[] = "ADOPTRT";
constexpr char kCorr[] = "rt-ADOPTRT-1-r1";

}  // namespace

BOOST_AUTO_TEST_CASE(an_adopter_holds_on_to_a_run_through_and_catches_up_on_what_it_missed) {
  FtbRunFixture run;
  ftb::testing::EventCollector story(run.agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.MPI.*");
  const pid_t first = run.start({"--job", kJob, "--nodes", "localhost", "--ranks-per-node", "2", "--run-through",
                                 "--run-through-deadline-ms", "60000", "--mpirun", run.writeRunThroughMpirun(),
                                 // 20 s at least: the kill and the adoption happen while the job runs.
                                 "--", runfile("components/mpi_bridge/examples/stencil"), "--iterations", "1000",
                                 "--iteration-ms", "20"},
                                "first.log");
  BOOST_REQUIRE_MESSAGE(ftb::mpi_bridge::testing::awaitConnectedRanks(run.agent.ipcEndpoint(), kJob, 2),
                        "the ranks never connected:\n" << run.log("first.log"));

  // What rank 1's agent and then the runtime would publish.
  auto runtime = ftb::testing::connectOrFail(run.agent.ipcEndpoint(), "FTB.MPI.FTBCKPT", "fake-runtime");
  BOOST_REQUIRE(runtime->declare({{"FTB_MPI_PROCS_DEAD", ftb::Severity::kFatal},
                                  {"FTB_RUN_THROUGH", ftb::Severity::kWarning}})
                    .ok());
  BOOST_REQUIRE(runtime
                    ->publish("FTB_MPI_PROCS_DEAD", "rank 1 died",
                              {{"job", kJob}, {"rank", "1"}, {"node", "localhost"}, {"attempt", "0"}})
                    .ok());
  BOOST_REQUIRE_MESSAGE(ftb::testing::waitFor([&] {
                          return run.log("state/" + std::string(kJob) + ".job").find("repair_until_ms=") !=
                                 std::string::npos;
                        }),
                        "the hold never reached the journal:\n" << run.log("first.log"));

  BOOST_REQUIRE(kill(first, SIGKILL) == 0);
  BOOST_REQUIRE(run.waitExit(first, 20000).has_value());
  // The recovery ends while no ftb-run is there to see it.
  for (const char* step : {"detected", "computing"}) {
    BOOST_REQUIRE(runtime
                      ->publish("FTB_RUN_THROUGH", std::string("run-through recovery: ") + step,
                                {{"corr", kCorr}, {"step", step}, {"ranks", "1"}, {"ms", "180"}, {"rank", "0"}})
                      .ok());
  }
  BOOST_REQUIRE(story.waitFor(named("FTB_RUN_THROUGH", "step", "computing"), 20s));

  const pid_t second = run.start({"--adopt", kJob}, "adopter.log");
  auto decision = story.waitFor(named("FTB_DECISION", "corr", kCorr), 20s);
  BOOST_REQUIRE_MESSAGE(decision, "the adopter never told the recovery's decision:\n" << run.log("adopter.log"));
  BOOST_TEST(tag(*decision, "action") == "run-through");
  BOOST_TEST(tag(*decision, "trigger") == "FTB_MPI_PROCS_DEAD");  // the journaled will
  BOOST_TEST(tag(*decision, "node") == "localhost");
  BOOST_TEST(story.waitFor(named("FTB_JOB_STATE", "corr", kCorr), 20s).has_value(), "no 'running' under " << kCorr);
  auto failures = story.waitFor(named("FTB_FAILURES", "corr", kCorr), 20s);
  BOOST_REQUIRE(failures);
  BOOST_TEST(tag(*failures, "failures") == "process:1,node:0");

  auto code = run.waitExit(second, 120000);
  if (!code) kill(second, SIGKILL);
  BOOST_REQUIRE_MESSAGE(code && *code == 0, "the adopter: " << (code ? *code : -1) << "\n" << run.log("adopter.log"));
  BOOST_TEST(run.log("first.log").find("RESULT iterations=1000") != std::string::npos, run.log("first.log"));
  BOOST_TEST(!story.waitFor(named("FTB_JOB_RELAUNCH"), 0ms), "the job must not have been relaunched");
}
