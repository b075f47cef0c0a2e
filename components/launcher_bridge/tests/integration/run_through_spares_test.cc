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
#include <string>
#include <vector>

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

auto nodeState(const std::string& host, const std::string& state, const std::string& corr = kCorr) {
  return [=](const Event& e) {
    return e.event_name == "FTB_NLA_STATE" && tag(e, "host") == host && tag(e, "state") == state &&
           tag(e, "corr") == corr;
  };
}

// Publishes the runtime's FTB_RUN_THROUGH steps of recovery `corr`: `ranks`
// replaced, on `nodes` when spawned.
void runtimeSteps(ftb::Client& runtime, const std::string& corr, const std::vector<std::string>& steps,
                  const std::string& ranks, const std::string& nodes) {
  for (const std::string& step : steps) {
    ftb::Tags tags = {{"corr", corr}, {"step", step}, {"ranks", ranks}, {"ms", "180"}, {"rank", "0"}};
    if (step == "spawned") tags["nodes"] = nodes;
    BOOST_REQUIRE(runtime.publish("FTB_RUN_THROUGH", "run-through recovery: " + step, tags).ok());
  }
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
  runtimeSteps(*runtime, kCorr, {"detected", "spawned", "computing"}, "2,3", "s0,s0");
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

// A replacement that splits a node's block (rank 4 of n1's 3-5 on the spare
// s0, as for a suspect node whose other ranks run on) is recorded where it
// runs. When the job is relaunched later (here a second repair never
// computes, so its deadline passes: 10 s, well inside the job's 40 s),
// mpirun places every rank where the table says, through a rankfile: rank 4
// on s0, ranks 3 and 5 on n1.
BOOST_AUTO_TEST_CASE(a_split_block_is_recorded_and_relaunched_with_each_rank_where_it_ran) {
  const std::string job = "RTSPLIT", first = "rt-RTSPLIT-1-r4";
  FtbRunFixture run;
  ftb::testing::EventCollector story(run.agent.ipcEndpoint(), "event_space=FTB.JL.*|FTB.NLA.*|FTB.MPI.*");
  const pid_t pid = run.start({"--job", job, "--nodes", "n0,n1", "--spares", "s0", "--ranks-per-node", "3",
                               "--slurm", "off", "--run-through", "--run-through-deadline-ms", "10000", "--mpirun",
                               run.writeRunThroughMpirun(), "--", runfile("components/mpi_bridge/examples/stencil"),
                               "--iterations", "2000", "--iteration-ms", "20"},
                              "ftb-run.log");
  BOOST_REQUIRE_MESSAGE(ftb::mpi_bridge::testing::awaitConnectedRanks(run.agent.ipcEndpoint(), job, 6),
                        "the ranks never connected:\n" << run.log("ftb-run.log"));
  BOOST_TEST(run.log("mpirun.args").find("--host n0:3,n1:3,s0:3 --map-by slot ") != std::string::npos,
             run.log("mpirun.args"));

  auto runtime = ftb::testing::connectOrFail(run.agent.ipcEndpoint(), "FTB.MPI.FTBCKPT", "fake-runtime");
  BOOST_REQUIRE(runtime->declare({{"FTB_RUN_THROUGH", ftb::Severity::kWarning}}).ok());
  runtimeSteps(*runtime, first, {"detected", "spawned", "computing"}, "4", "s0");
  BOOST_TEST(story.waitFor(nodeState("s0", "MIGRATION_READY", first), 20s).has_value(), run.log("ftb-run.log"));
  BOOST_TEST_REQUIRE(story.waitFor(named("FTB_JOB_STATE", "corr", first), 20s).has_value(), run.log("ftb-run.log"));

  runtimeSteps(*runtime, "rt-RTSPLIT-2-r3", {"detected"}, "3", "");
  BOOST_TEST_REQUIRE(story.waitFor(named("FTB_JOB_RELAUNCH", "state", "relaunched"), 30s).has_value(),
                     run.log("ftb-run.log"));
  auto code = run.waitExit(pid, 120000);
  if (!code) kill(pid, SIGKILL);
  BOOST_REQUIRE_MESSAGE(code && *code == 0, "ftb-run: " << (code ? *code : -1) << "\n" << run.log("ftb-run.log"));
  BOOST_TEST(run.log("ftb-run.log").find("RESULT iterations=2000") != std::string::npos, run.log("ftb-run.log"));
  const std::string args = run.log("mpirun.args");
  BOOST_TEST(args.find("--host n0:3,n1:2,s0:1 --map-by rankfile:file=") != std::string::npos, args);
  BOOST_TEST(run.log("mpirun.rankfiles") ==
                 "rank 0=n0 slot=0\nrank 1=n0 slot=0\nrank 2=n0 slot=0\nrank 3=n1 slot=0\nrank 4=s0 slot=0\n"
                 "rank 5=n1 slot=0\n",
             args);
}
