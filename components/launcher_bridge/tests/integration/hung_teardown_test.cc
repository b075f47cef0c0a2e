// ftb-run with a real agent and mpirun on this machine (no root): every rank
// finishes its computation (ftbckpt_finalize publishes FTB_RANK_FINISHED) and
// then hangs in its teardown, as MPI_Finalize can after a ULFM recovery (Open
// MPI 5.0.7). Here the rank's process is a shell that runs the stencil and then
// sleeps: mpirun waits for it. ftb-run ends mpirun --finalize-grace-ms after the
// last rank finished and reports the job finished (exit 0), instead of waiting
// for a teardown that never ends. A grace of 3 s, not the 500 ms a fast machine
// needs: mpirun forwards rank 0's RESULT line before it is ended.
#define BOOST_TEST_MODULE launcher_hung_teardown
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <cstdlib>

#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"
#include "tests/support/event_collector.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::testing::FtbRunFixture;
using ftb::launcher::testing::tag;
using ftb::testing::runfile;

BOOST_AUTO_TEST_CASE(a_job_whose_ranks_finished_but_whose_teardown_hangs_is_finished) {
  FtbRunFixture run;
  ftb::testing::EventCollector story(run.agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.MPI.*");
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = run.start(
      {"--job", "HUNG", "--nodes", "localhost", "--spares", "127.0.0.1", "--ranks-per-node", "2",
       "--finalize-grace-ms", "3000", "--", "/bin/sh", "-c", "\"$0\" \"$@\" && exec sleep 600",
       runfile("components/mpi_bridge/examples/stencil"), "--iterations", "40"},
      "ftb-run.log");
  auto code = run.waitExit(pid, 60000);
  const std::string text = run.log("ftb-run.log");
  if (!code) ::kill(pid, SIGKILL);
  BOOST_REQUIRE_MESSAGE(code.has_value(), "ftb-run still waits for the hung teardown after 60 s:\n" << text);
  BOOST_REQUIRE_MESSAGE(*code == 0, "ftb-run exited " << *code << ":\n" << text);
  BOOST_TEST(text.find("RESULT iterations=40") != std::string::npos, text);
  BOOST_TEST(text.find("after every rank finished") != std::string::npos, text);
  for (int rank : {0, 1}) {
    BOOST_TEST(story.waitFor(
                   [&](const Event& e) {
                     return e.event_name == "FTB_RANK_FINISHED" && tag(e, "rank") == std::to_string(rank) &&
                            tag(e, "exit_code") == "0";
                   },
                   20s)
                   .has_value(),
               "no FTB_RANK_FINISHED of rank " << rank);
  }
  const auto finished = [](const Event& e) { return e.event_name == "FTB_JOB_STATE" && tag(e, "state") == "finished"; };
  BOOST_TEST(story.waitFor(finished, 20s).has_value());
  BOOST_TEST(!story.waitFor([](const Event& e) { return e.event_name == "FTB_JOB_RELAUNCH"; }, 0ms));
  std::printf("finished %.1f s after start\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}
