// The launcher bridge in a multi-node lab (components/launcher_bridge/lab):
// network-namespace nodes n1..n4, an ftb-agent on each in one tree, an
// ipmi_sim BMC per node watched by its own ftb-ipmi, Open MPI's mpirun across
// the namespaces, and mpi_bridge's stencil with the ftbckpt runtime. ftb-run
// runs the stencil on n1..n3 (2 ranks each), n4 is the hot spare; every
// scenario ends with the stencil's checksum compared bit for bit with a
// failure-free run; a last one adds a real Slurm cluster (munged, slurmctld,
// one slurmd per node), runs ftb-run inside a salloc allocation and checks
// drain and resume. Timings: bench/recovery_bench.
#define BOOST_TEST_MODULE launcher_lab
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include "components/ipmi/testing/monitor_process.h"
#include "components/launcher_bridge/lab/job_lab.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::lab::is;
using ftb::launcher::lab::JobLab;
using ftb::launcher::lab::JobShape;
using ftb::launcher::lab::skipped;
using ftb::launcher::lab::tag;

namespace {

// 300 iterations of 40 ms: 12 s at least, so that every scenario's fault and
// recovery happen while the job runs, on a loaded machine too.
JobShape labShape() {
  return {.nodes = {"n1", "n2", "n3", "n4"},
          .job_nodes = {"n1", "n2", "n3"},
          .ranks_per_node = 2,
          .stencil = {"--nx", "256", "--ny", "64", "--iterations", "300", "--checkpoint-every", "10",
                      "--iteration-ms", "40"}};
}

// One lab per test: nodes, agents, BMCs + monitors, an observer at the head.
struct Lab : JobLab {
  Lab() : JobLab(labShape()) {}
};

// The failure-free answer, computed once per test binary.
std::string baseline() {
  static std::string result;
  if (result.empty()) {
    Lab lab;
    result = lab.finish(lab.start("BASE", {}));
  }
  return result;
}

}  // namespace

BOOST_AUTO_TEST_CASE(failure_free_run_with_timer_checkpoints) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("TIMER", {"--spares", "n4", "--checkpoint-every-s", "2"});
  Event timed = lab.require(
      [](const Event& e) { return e.event_name == "FTB_CHECKPOINT_OUTCOME" && tag(e, "corr").starts_with("TIMER-T"); },
      "a timer checkpoint answered by every rank", 0, 60s);
  BOOST_TEST(tag(timed, "ranks_done") == "6");
  BOOST_TEST(lab.finish(pid) == expected);
  BOOST_TEST(!lab.story->waitFor(is("FTB_DECISION", {{"action", "migrate"}}), 0ms));
}

BOOST_AUTO_TEST_CASE(fan_failure_on_n2_moves_its_ranks_to_the_spare) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("FAN", {"--spares", "n4"});
  lab.awaitComputing("FAN");
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");  // FAN1 to 0 RPM, with a SEL record

  lab.require(ftb::ipmi::testing::named("FTB_IPMI_FANFAIL", "n2"), "FTB_IPMI_FANFAIL of n2");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  BOOST_TEST(tag(decision, "ranks") == "2,3");
  const std::string corr = tag(decision, "corr");
  Event pic = lab.require(is("FTB_MIGRATE_PIC", {{"corr", corr}, {"source", "n2"}}), "FTB_MIGRATE_PIC");
  BOOST_TEST(tag(pic, "ranks") == "2,3");
  lab.require(is("FTB_NLA_STATE", {{"host", "n2"}, {"state", "MIGRATION_INACTIVE"}, {"corr", corr}}), "n2 INACTIVE");
  lab.require(is("FTB_MIGRATE_IPT", {{"corr", corr}, {"target", "n4"}, {"ranks", "2,3"}}), "FTB_MIGRATE_IPT");
  // A recovery is a WARNING for operators who filter by severity.
  Event relaunched = lab.require(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  BOOST_TEST((relaunched.severity == ftb::Severity::kWarning));
  // The moved ranks' node-local copies stayed on n2: they are rebuilt from other nodes.
  lab.requireRestored(corr, {2, 3});
  BOOST_TEST(lab.finish(pid) == expected);

  // Healthy again: n2 becomes a spare.
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 100 1");
  lab.require(ftb::ipmi::testing::named("FTB_IPMI_NORMAL", "n2"), "FTB_IPMI_NORMAL of n2");
}

// --node-encoders: each node runs a third process, its checkpoint encoder,
// which does the partner copies of the migration's L2 checkpoint; the moved
// ranks are rebuilt from them on the spare (with its own encoder) and the
// answer is the same as without encoders.
BOOST_AUTO_TEST_CASE(with_node_encoders_a_fan_failure_still_moves_the_ranks_to_the_spare) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("ENC", {"--spares", "n4", "--node-encoders"});
  lab.awaitComputing("ENC");
  Event launched = lab.require(is("FTB_JOB_STATE", {{"state", "launched"}}), "the launch");
  BOOST_TEST(launched.payload.find("on n1:3,n2:3,n3:3 ") != std::string::npos, launched.payload);
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");  // FAN1 to 0 RPM
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  BOOST_TEST(tag(decision, "ranks") == "2,3");  // ranks keep their numbers: the encoders are none
  const std::string corr = tag(decision, "corr");
  Event relaunched = lab.require(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  BOOST_TEST(relaunched.payload.find("on n1:3,n4:3,n3:3") != std::string::npos, relaunched.payload);
  lab.requireRestored(corr, {2, 3});
  BOOST_TEST(lab.finish(pid) == expected);
}

// ftb-run itself SIGKILLed mid-run: the job computes on unmanaged under its
// keeper; `ftb-run --adopt` takes it over from the journal without restarting
// it, and a fan failure after that still migrates n2's ranks to the spare.
BOOST_AUTO_TEST_CASE(a_launcher_killed_mid_run_is_adopted_and_a_later_fan_failure_still_migrates) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  lab.shape.stencil.back() = "80";  // --iteration-ms: time for the kill and the adoption (same answer)
  pid_t first = lab.start("ADOPT", {"--spares", "n4"});
  lab.awaitComputing("ADOPT");
  const std::size_t before_kill = lab.story->size();
  BOOST_REQUIRE(kill(first, SIGKILL) == 0);
  BOOST_REQUIRE(ftb::launcher::lab::waitExit(first, 10000).has_value());

  pid_t second = lab.adopt("ADOPT");
  Event adopted = lab.require(is("FTB_JOB_STATE", {{"state", "adopted"}}), "the adoption", before_kill);
  BOOST_TEST(tag(adopted, "attempt") == "0");  // the same run: nothing was restarted
  lab.awaitComputing("ADOPT");                 // the new launcher relays requests and every rank answers
  BOOST_TEST(!lab.story->waitFor(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}}), 0ms));

  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");  // FAN1 to 0 RPM
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision",
                               before_kill);
  BOOST_TEST(tag(decision, "target") == "n4");
  const std::string corr = tag(decision, "corr");
  lab.require(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  lab.requireRestored(corr, {2, 3});
  BOOST_TEST(lab.finish(second) == expected);
}

BOOST_AUTO_TEST_CASE(node_n3_killed_outright_is_relaunched_on_the_spare_from_memory) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("KILL", {"--spares", "n4"});
  lab.awaitComputing("KILL");
  lab.lab.killNode("n3");  // its agent, orted, ranks and /dev/shm

  // The tree announces the node with the ranks its agent's last heartbeat
  // named (which of n3's ranks that was is timing: tests/integration/tree:
  // node_lost_test waits for it and checks it exactly); the relaunch is
  // decided under the announcement's correlation id.
  Event lost = lab.require(is("FTB_NODE_LOST", {{"node", "n3"}}), "the tree's announcement of n3");
  const std::string ranks = tag(lost, "job_ranks");
  BOOST_TEST((ranks.empty() || ranks == "KILL:" || ranks == "KILL:4" || ranks == "KILL:5" || ranks == "KILL:4,5"),
             "n3's announcement names ranks that did not live there: " << ranks);
  Event decision = lab.require(is("FTB_DECISION", {{"action", "relaunch"}, {"node", "n3"}}), "the relaunch decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  const std::string corr = tag(decision, "corr");
  BOOST_TEST(corr == tag(lost, "corr"));
  lab.require(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  lab.requireRestored(corr, {4, 5});
  BOOST_TEST(lab.finish(pid) == expected);
}

// Protected again at once: after the relaunch that rebuilt n3's ranks on the
// spare, every rank has written a new checkpoint before FTB_RESTART_DONE (so
// before `running`). A second node of the same groups lost right after
// `running` is then rebuilt from that checkpoint; without it, the groups would
// have lost two members of the same checkpoint (n3's, then n2's) and no level
// could restore them. The lab sets no flush directory: memory alone.
BOOST_AUTO_TEST_CASE(a_second_node_lost_right_after_running_is_rebuilt_from_the_reprotected_checkpoint) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("TWICE", {"--spares", "n4"});
  lab.awaitComputing("TWICE");
  lab.lab.killNode("n3");
  Event first = lab.require(is("FTB_DECISION", {{"action", "relaunch"}, {"node", "n3"}}), "the first decision");
  const std::string first_corr = tag(first, "corr");
  lab.requireRestored(first_corr, {4, 5});
  for (int rank = 0; rank < lab.shape.ranks(); ++rank) {
    Event done = lab.require(is("FTB_RESTART_DONE", {{"corr", first_corr}, {"rank", std::to_string(rank)}}),
                             "FTB_RESTART_DONE of rank " + std::to_string(rank));
    BOOST_TEST(!tag(done, "protected_ckpt_id").empty(), "rank " << rank << " did not re-protect");
  }
  lab.lab.killNode("n2");  // right after `running`, before any periodic checkpoint

  Event second = lab.require(is("FTB_DECISION", {{"action", "relaunch"}, {"node", "n2"}}), "the second decision");
  const std::string second_corr = tag(second, "corr");
  lab.requireRestored(second_corr, {2, 3});
  BOOST_TEST(lab.finish(pid) == expected);
  BOOST_TEST(!lab.story->waitFor(is("FTB_RESTART_FAILED", {}), 0ms));
}

// A rank SIGKILLed on a live node: its agent publishes the rank's last will
// (FTB_MPI_PROCS_DEAD) and FTB_CLIENT_LOST within milliseconds; mpirun's
// teardown kills the other ranks, every node's agent reports, and ftb-run
// restarts the run in place at once (not after mpirun's exit and the 1.5 s
// exit grace): every rank restores from its own memory, nothing is rebuilt.
BOOST_AUTO_TEST_CASE(rank_killed_on_a_live_node_is_announced_by_its_will_and_restarted_at_once) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("RANK", {"--spares", "n4"});
  lab.awaitComputing("RANK");
  const pid_t rank2 = lab.lab.rankPid("n2", 2);
  BOOST_REQUIRE_MESSAGE(rank2 > 0, "no process of rank 2 on n2");
  const double killed_at = ftb::launcher::lab::now();
  BOOST_REQUIRE(kill(rank2, SIGKILL) == 0);

  Event will = lab.require(is("FTB_MPI_PROCS_DEAD", {{"rank", "2"}, {"host", "n2"}, {"job", "RANK"}, {"attempt", "0"}}),
                           "rank 2's last will");
  BOOST_TEST((will.severity == ftb::Severity::kFatal));
  lab.require(is("FTB_CLIENT_LOST", {{"client", "ftbckpt-r2"}, {"node", "n2"}, {"will", "1"}}),
              "n2's agent: FTB_CLIENT_LOST of rank 2");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "restart"}, {"trigger", "FTB_MPI_PROCS_DEAD"}}),
                               "the restart decision on the wills");
  BOOST_TEST(tag(decision, "target") == tag(decision, "node"));  // nothing moves
  using ftb::launcher::lab::seconds;
  const double announced = seconds(will) - killed_at;
  const double decided = seconds(decision) - seconds(will);
  BOOST_TEST_MESSAGE("kill -> will published " << announced * 1000 << " ms; will -> decision " << decided * 1000
                                               << " ms");
  const std::string corr = tag(decision, "corr");
  lab.require(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  lab.requireRestored(corr, {});  // every rank from its own L1
  BOOST_TEST(lab.finish(pid) == expected);
  // At once, on the will: ftb-run never took mpirun's exit for an
  // unannounced one (then it waits the exit grace for events to explain it).
  // The time it took is the figure above, not an assertion.
  std::ifstream log_file(lab.log);
  const std::string log((std::istreambuf_iterator<char>(log_file)), std::istreambuf_iterator<char>());
  BOOST_TEST(log.find("unannounced") == std::string::npos, log);
  // One decision for one death: the teardown's deaths were not acted on again.
  BOOST_TEST(!lab.story->waitFor(is("FTB_DECISION", {{"action", "relaunch"}}), 0ms));
  BOOST_TEST(!lab.story->waitFor(is("FTB_MIGRATE_IPT", {{"corr", corr}}), 0ms));
}

BOOST_AUTO_TEST_CASE(all_nodes_over_temperature_checkpoint_the_whole_job) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("HOT", {});  // no spare: nothing can migrate
  lab.awaitComputing("HOT");
  for (const char* node : {"n1", "n2", "n3"}) lab.bmcs[node]->command("sensor_set_value 0x20 0 1 95 1");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "checkpoint"}, {"trigger", "FTB_IPMI_OVERTEMP"}}),
                               "the whole-job checkpoint decision");
  const std::string corr = tag(decision, "corr");
  Event outcome = lab.require(is("FTB_CHECKPOINT_OUTCOME", {{"corr", corr}}), "the checkpoint's outcome");
  BOOST_TEST(tag(outcome, "ok") == "1");
  BOOST_TEST(tag(outcome, "ranks_done") == "6");
  // Each monitor must have seen the heat before it is taken away: the decision
  // needs only two of three, and a starved monitor's sweep may come late; a
  // node cooled before its monitor saw it hot never reports NORMAL.
  for (const char* node : {"n1", "n2", "n3"}) {
    lab.require(ftb::ipmi::testing::named("FTB_IPMI_OVERTEMP", node), std::string("FTB_IPMI_OVERTEMP of ") + node);
  }
  for (const char* node : {"n1", "n2", "n3"}) lab.bmcs[node]->command("sensor_set_value 0x20 0 1 45 1");
  for (const char* node : {"n1", "n2", "n3"}) {
    lab.require(ftb::ipmi::testing::named("FTB_IPMI_NORMAL", node), std::string("FTB_IPMI_NORMAL of ") + node);
  }
  BOOST_TEST(lab.finish(pid) == expected);
  BOOST_TEST(!lab.story->waitFor(is("FTB_JOB_RELAUNCH", {{"state", "relaunched"}}), 0ms));
}

// With a real Slurm cluster over the lab, ftb-run inside an allocation
// (salloc): no --nodes, the allocation's n1..n4 with the last one as the
// spare; --slurm auto drains the failing node with ftb's reason and resumes
// it when healthy.
// mpirun is kept on the lab's rsh agent (plm=rsh, ras=^slurm): this is about
// ftb-run's allocation path, not Open MPI's Slurm launcher.
BOOST_AUTO_TEST_CASE(inside_a_slurm_allocation_drains_the_failing_node_and_resumes_it) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  lab.lab.startSlurm();
  setenv("SLURM_CONF", lab.lab.slurmConf().c_str(), 1);
  setenv("OMPI_MCA_plm", "rsh", 1);
  setenv("OMPI_MCA_ras", "^slurm", 1);
  pid_t pid = lab.startInAllocation("ALLOC", {"salloc", "--quiet", "-w", "n1,n2,n3,n4", "--"}, {});
  lab.awaitComputing("ALLOC");
  Event launched = lab.require(is("FTB_JOB_STATE", {{"state", "launched"}}), "the launch");
  BOOST_TEST(launched.payload.find("on n1:2,n2:2,n3:2 ") != std::string::npos, launched.payload);
  lab.require(is("FTB_NLA_STATE", {{"host", "n4"}, {"state", "MIGRATION_SPARE"}}), "n4 a spare");
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  const std::string corr = tag(decision, "corr");
  BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState("n2").find("ftb: migrated off (" + corr + ")") != std::string::npos; }),
             lab.lab.slurmState("n2"));
  lab.requireRestored(corr, {2, 3});
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 100 1");
  lab.require(is("FTB_DECISION", {{"action", "spare"}, {"node", "n2"}}), "the spare decision");
  // Resumed while still allocated: no longer draining, ftb's reason gone.
  BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState("n2").find("drain") == std::string::npos; }),
             lab.lab.slurmState("n2"));
  BOOST_TEST(lab.finish(pid) == expected);
  // The allocation ended with ftb-run: every node is idle again.
  for (const char* node : {"n1", "n2", "n3", "n4"}) {
    BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState(node).rfind("idle", 0) == 0; }),
               node << ": " << lab.lab.slurmState(node));
  }
  unsetenv("OMPI_MCA_ras");
  unsetenv("OMPI_MCA_plm");
  unsetenv("SLURM_CONF");
}

// Inside an allocation of n1..n4 (n4 the spare), with n5 idle in the cluster:
// a fan failure on n2 uses the spare; ftb-run, now below --min-spares 1, asks
// Slurm for a node (a companion allocation) and gets n5 as a new spare; a fan
// failure on n3 then moves its ranks to n5. The companion allocation ends with
// ftb-run.
BOOST_AUTO_TEST_CASE(inside_slurm_a_used_up_spare_is_replaced_by_a_new_node_from_slurm) {
  if (skipped()) return;
  const std::string expected = baseline();
  JobShape shape = labShape();
  shape.nodes.push_back("n5");
  JobLab lab(shape);
  lab.lab.startSlurm();
  setenv("SLURM_CONF", lab.lab.slurmConf().c_str(), 1);
  setenv("OMPI_MCA_plm", "rsh", 1);
  setenv("OMPI_MCA_ras", "^slurm", 1);
  pid_t pid = lab.startInAllocation("GROW", {"salloc", "--quiet", "-w", "n1,n2,n3,n4", "--"}, {});
  lab.awaitComputing("GROW");
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");
  Event first = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the first migration");
  BOOST_TEST(tag(first, "target") == "n4");
  lab.requireRestored(tag(first, "corr"), {2, 3});
  Event grow = lab.require(is("FTB_DECISION", {{"action", "grow"}, {"node", "n5"}}), "n5 granted by Slurm");
  lab.require(is("FTB_NLA_STATE", {{"host", "n5"}, {"state", "MIGRATION_SPARE"}}), "n5 a spare");
  BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState("n5").rfind("alloc", 0) == 0; }),
             lab.lab.slurmState("n5"));
  lab.bmcs["n3"]->command("sensor_set_value 0x20 0 3 0 1");
  Event second = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n3"}}), "the second migration");
  BOOST_TEST(tag(second, "target") == "n5");
  lab.requireRestored(tag(second, "corr"), {4, 5});
  BOOST_TEST(lab.finish(pid) == expected);
  // Both allocations ended with ftb-run (n5's companion one too); the failing
  // nodes stay drained with ftb's reason, the others are idle.
  for (const char* node : {"n1", "n4", "n5"}) {
    BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState(node).rfind("idle", 0) == 0; }),
               node << ": " << lab.lab.slurmState(node));
  }
  for (const char* node : {"n2", "n3"}) {
    BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState(node).find("ftb: migrated off") != std::string::npos; }),
               node << ": " << lab.lab.slurmState(node));
  }
  BOOST_TEST(tag(grow, "rule") == "min-spares");
  unsetenv("OMPI_MCA_ras");
  unsetenv("OMPI_MCA_plm");
  unsetenv("SLURM_CONF");
}
