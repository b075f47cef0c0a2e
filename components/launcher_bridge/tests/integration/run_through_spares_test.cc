// ftb-run --run-through hands its spares to the runtime: they join mpirun's
// allocation after the ranks' nodes (no rank maps to them) and the ranks hear
// their names (FTBCKPT_SPARE_NODES), so a replacement for a rank of a suspect
// node can be spawned there. When the runtime reports that it placed every
// rank of a node on a spare, ftb-run's node table follows: the spare is READY,
// the node INACTIVE, both told in FTB.NLA.<job>, so a later relaunch starts the
// ranks where they now run. A spare whose agent is lost while the job runs is
// drained at once: no target any more.
//
// Real agent, ftb-run, mpirun (Debian 12's Open MPI) and stencil ranks; the
// "nodes" are names on this machine. The run-through itself needs ULFM (Open
// MPI 5, tests/ulfm): here the test publishes the runtime's FTB_RUN_THROUGH
// steps, and mpirun is called through a wrapper that records its arguments,
// puts every "node" on localhost and drops `--with-ft ulfm`.
#define BOOST_TEST_MODULE launcher_run_through_spares
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

constexpr char kJob[] = "RTSPARE";
constexpr char kCorr[] = "rt-RTSPARE-1-r2.3";

auto nodeState(const std::string& host, const std::string& state) {
  return [=](const Event& e) {
    return e.event_name == "FTB_NLA_STATE" && tag(e, "host") == host && tag(e, "state") == state &&
           tag(e, "corr") == kCorr;
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_node_whose_ranks_were_all_replaced_on_a_spare_hands_it_its_block_and_a_lost_spare_is_retired) {
  FtbRunFixture run;
  ftb::testing::EventCollector story(run.agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.NLA.*|FTB.MPI.*");
  const pid_t pid = run.start({"--job", kJob, "--nodes", "n0,n1", "--spares", "s0,s1", "--ranks-per-node", "2",
                               "--slurm", "off", "--run-through", "--run-through-deadline-ms", "60000", "--mpirun",
                               run.writeRunThroughMpirun(),
                               // 20 s at least: the recovery's steps arrive while the job runs.
                               "--", runfile("components/mpi_bridge/examples/stencil"), "--iterations", "1000",
                               "--iteration-ms", "20"},
                              "ftb-run.log");
  BOOST_REQUIRE_MESSAGE(ftb::mpi_bridge::testing::awaitConnectedRanks(run.agent.ipcEndpoint(), kJob, 4),
                        "the ranks never connected:\n" << run.log("ftb-run.log"));
  const std::string args = run.log("mpirun.args");
  BOOST_TEST(args.find("--host n0:2,n1:2,s0:2,s1:2 ") != std::string::npos, args);
  BOOST_TEST(args.find("FTBCKPT_SPARE_NODES=s0,s1") != std::string::npos, args);

  // What the runtime would publish after replacing n1's ranks 2 and 3 on s0.
  auto runtime = ftb::testing::connectOrFail(run.agent.ipcEndpoint(), "FTB.MPI.FTBCKPT", "fake-runtime");
  BOOST_REQUIRE(runtime->declare({{"FTB_RUN_THROUGH", ftb::Severity::kWarning}}).ok());
  for (const char* step : {"detected", "spawned", "computing"}) {
    ftb::Tags tags = {{"corr", kCorr}, {"step", step}, {"ranks", "2,3"}, {"ms", "180"}, {"rank", "0"}};
    if (std::string(step) == "spawned") tags["nodes"] = "s0,s0";
    BOOST_REQUIRE(runtime->publish("FTB_RUN_THROUGH", std::string("run-through recovery: ") + step, tags).ok());
  }
  BOOST_TEST(story.waitFor(nodeState("s0", "MIGRATION_READY"), 20s).has_value(), run.log("ftb-run.log"));
  BOOST_TEST(story.waitFor(nodeState("n1", "MIGRATION_INACTIVE"), 20s).has_value(), run.log("ftb-run.log"));
  BOOST_TEST(story.waitFor(named("FTB_JOB_STATE", "corr", kCorr), 20s).has_value(), "no 'running' under " << kCorr);

  // What the tree would publish when s1's agent is lost: acted on while the job runs.
  auto tree = ftb::testing::connectOrFail(run.agent.ipcEndpoint(), "FTB.AGENT", "fake-tree");
  BOOST_REQUIRE(tree->declare({{"FTB_NODE_LOST", ftb::Severity::kError}}).ok());
  BOOST_REQUIRE(tree->publish("FTB_NODE_LOST", "s1 by=silence",
                              {{"node", "s1"}, {"by", "silence"}, {"jobs", ""}, {"corr", "node-s1-1"}})
                    .ok());
  auto drained = story.waitFor(named("FTB_DECISION", "node", "s1"), 20s);
  BOOST_REQUIRE_MESSAGE(drained, "no decision on the lost spare:\n" << run.log("ftb-run.log"));
  BOOST_TEST(tag(*drained, "action") == "drain");

  auto code = run.waitExit(pid, 120000);
  if (!code) kill(pid, SIGKILL);
  BOOST_REQUIRE_MESSAGE(code && *code == 0, "ftb-run: " << (code ? *code : -1) << "\n" << run.log("ftb-run.log"));
  BOOST_TEST(run.log("ftb-run.log").find("RESULT iterations=1000") != std::string::npos, run.log("ftb-run.log"));
  BOOST_TEST(!story.waitFor(named("FTB_JOB_RELAUNCH"), 0ms), "the job must not have been relaunched");
}
