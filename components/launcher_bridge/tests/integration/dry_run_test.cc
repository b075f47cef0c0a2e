// ftb-run --dry-run on one machine (no root needed): a real agent on
// loopback, mpi_bridge's stencil under mpirun on "localhost" with spare
// "127.0.0.1". A fan failure of the job's node yields FTB_DECISION with
// dry_run=1 and nothing else: no FTB_MIGRATE, no relaunch, the job finishes.
// Extra mpirun arguments (-x VAR=value) reach mpirun and the ranks.
#define BOOST_TEST_MODULE launcher_dry_run
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>

#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"
#include "tests/support/event_collector.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::testing::FtbRunFixture;
using ftb::launcher::testing::tag;
using ftb::testing::runfile;

BOOST_AUTO_TEST_CASE(a_dry_run_only_publishes_its_decisions) {
  FtbRunFixture run;
  ftb::testing::EventCollector story(run.agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.MPI.*");
  pid_t pid = run.start(
      {"--job", "DRY", "--dry-run", "--nodes", "localhost",
       "--spares", "127.0.0.1", "--ranks-per-node", "2",
       // Passed to mpirun as given, and the program's own options after "--" stay its own.
       "--mpirun-arg=-x", "--mpirun-arg=FTBCKPT_SCHEDULE=auto:L1", "--mpirun-arg=-x", "--mpirun-arg=FTBCKPT_MTBF=3600",
       // 12 s at least: the fan failure below must reach ftb-run while the job runs, on a loaded machine too.
       "--", runfile("components/mpi_bridge/examples/stencil"),
       "--iterations", "600", "--iteration-ms", "20"},
      "ftb-run.log");
  BOOST_REQUIRE(story.waitFor([](const Event& e) { return e.event_name == "FTB_JOB_STATE"; }, 20s));

  // The ranks got the variable: rank 0 tells the schedule it set.
  BOOST_REQUIRE(story.waitFor(
      [](const Event& e) { return e.event_name == "FTB_CKPT_SCHEDULE" && tag(e, "level") == "L1"; }, 60s));

  auto hw = ftb::testing::connectOrFail(run.agent.ipcEndpoint(), "FTB.IPMI.MONITOR", "fake-bmc-monitor");
  BOOST_REQUIRE(hw->declare({{"FTB_IPMI_FANFAIL", ftb::Severity::kError}}).ok());
  BOOST_REQUIRE(hw->publish("FTB_IPMI_FANFAIL", "localhost node=localhost sensor=FAN1").ok());

  auto decision = story.waitFor([](const Event& e) { return e.event_name == "FTB_DECISION"; }, 20s);
  BOOST_REQUIRE(decision);
  BOOST_TEST(tag(*decision, "dry_run") == "1");
  BOOST_TEST(tag(*decision, "action") == "migrate");
  BOOST_TEST(tag(*decision, "node") == "localhost");
  BOOST_TEST(tag(*decision, "target") == "127.0.0.1");

  auto code = run.waitExit(pid, 120000);
  const std::string text = run.log("ftb-run.log");
  BOOST_REQUIRE_MESSAGE(code && *code == 0, "ftb-run: " << (code ? *code : -1) << "\n" << text);
  BOOST_TEST(text.find("RESULT iterations=600") != std::string::npos, text);
  for (const char* acted : {"FTB_MIGRATE", "FTB_MIGRATE_IPT", "FTB_CHECKPOINT"}) {
    BOOST_TEST(!story.waitFor([&](const Event& e) { return e.event_name == acted; }, 0ms), acted);
  }
  BOOST_TEST(!story.waitFor([](const Event& e) { return tag(e, "state") == "relaunched"; }, 0ms));
}
