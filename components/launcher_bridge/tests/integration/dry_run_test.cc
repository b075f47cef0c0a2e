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
#include <fstream>

#include "components/launcher_bridge/lab/netns_lab.h"
#include "tests/support/agent_process.h"
#include "tests/support/event_collector.h"
#include "tests/support/spawn.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::testing::runfile;

namespace {
std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_dry_run_only_publishes_its_decisions) {
  ftb::testing::AgentProcess agent;
  ftb::testing::TempDir dir;
  ftb::testing::EventCollector story(agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.MPI.*");
  setenv("FTB_AGENT_ENDPOINT", agent.ipcEndpoint().c_str(), 1);
  setenv("OMPI_MCA_pml", "ob1", 1);  // ../shared/notes/slurm-lab.md G6
  setenv("OMPI_MCA_mtl", "^ofi", 1);
  setenv("OMPI_MCA_btl", "self,vader", 1);
  const std::string log = dir.path() + "/ftb-run.log";
  pid_t pid = ftb::testing::spawn(
      {runfile("components/launcher_bridge/ftb-run"), "--job", "DRY", "--dry-run", "--nodes", "localhost",
       "--spares", "127.0.0.1", "--ranks-per-node", "2",
       // Passed to mpirun as given, and the program's own options after "--" stay its own.
       "--mpirun-arg=-x", "--mpirun-arg=FTBCKPT_SCHEDULE=auto:L1", "--mpirun-arg=-x", "--mpirun-arg=FTBCKPT_MTBF=3600",
       "--", runfile("components/mpi_bridge/examples/stencil"),
       "--iterations", "150", "--iteration-ms", "20"},
      log);
  BOOST_REQUIRE(story.waitFor([](const Event& e) { return e.event_name == "FTB_JOB_STATE"; }, 20s));

  // The ranks got the variable: rank 0 tells the schedule it set.
  BOOST_REQUIRE(story.waitFor(
      [](const Event& e) { return e.event_name == "FTB_CKPT_SCHEDULE" && tag(e, "level") == "L1"; }, 60s));

  auto hw = ftb::testing::connectOrFail(agent.ipcEndpoint(), "FTB.IPMI.MONITOR", "fake-bmc-monitor");
  BOOST_REQUIRE(hw->declare({{"FTB_IPMI_FANFAIL", ftb::Severity::kError}}).ok());
  BOOST_REQUIRE(hw->publish("FTB_IPMI_FANFAIL", "localhost node=localhost sensor=FAN1").ok());

  auto decision = story.waitFor([](const Event& e) { return e.event_name == "FTB_DECISION"; }, 20s);
  BOOST_REQUIRE(decision);
  BOOST_TEST(tag(*decision, "dry_run") == "1");
  BOOST_TEST(tag(*decision, "action") == "migrate");
  BOOST_TEST(tag(*decision, "node") == "localhost");
  BOOST_TEST(tag(*decision, "target") == "127.0.0.1");

  auto code = ftb::launcher::lab::waitExit(pid, 120000);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_REQUIRE_MESSAGE(code && *code == 0, "ftb-run: " << (code ? *code : -1) << "\n" << text);
  BOOST_TEST(text.find("RESULT iterations=150") != std::string::npos, text);
  for (const char* acted : {"FTB_MIGRATE", "FTB_MIGRATE_IPT", "FTB_CHECKPOINT"}) {
    BOOST_TEST(!story.waitFor([&](const Event& e) { return e.event_name == acted; }, 0ms), acted);
  }
  BOOST_TEST(!story.waitFor([](const Event& e) { return tag(e, "state") == "relaunched"; }, 0ms));
}
