// The launcher bridge in a multi-node lab (components/launcher_bridge/lab):
// network-namespace nodes n1..n4, an ftb-agent on each in one tree, an
// ipmi_sim BMC per node watched by its own ftb-ipmi, Open MPI's mpirun across
// the namespaces, and mpi_bridge's stencil with the ftbckpt runtime. ftb-run
// runs the stencil on n1..n3 (2 ranks each), n4 is the hot spare; every
// scenario ends with the stencil's checksum compared bit for bit with a
// failure-free run; a last one adds a real Slurm cluster (munged, slurmctld,
// one slurmd per node) and checks drain and resume. Prints BENCH lines: fault -> computing again, split.
#define BOOST_TEST_MODULE launcher_lab
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>

#include "components/ipmi/testing/ipmi_sim_process.h"
#include "components/ipmi/testing/monitor_process.h"
#include "components/ipmi/testing/monitor_rig.h"
#include "components/launcher_bridge/lab/netns_lab.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::testing::EventCollector;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorProcess;
using ftb::ipmi::testing::MonitorRig;
using ftb::launcher::lab::NetnsLab;
using ftb::testing::runfile;

namespace {

const std::vector<std::string> kNodes = {"n1", "n2", "n3", "n4"};
const std::vector<std::string> kStencil = {"--nx", "256", "--ny", "64", "--iterations", "150",
                                           "--checkpoint-every", "10", "--iteration-ms", "40"};

std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}

double seconds(const Event& e) { return static_cast<double>(e.time_sec) + e.time_nsec * 1e-9; }

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::function<bool(const Event&)> is(const std::string& name, std::map<std::string, std::string> tags = {}) {
  return [name, tags](const Event& e) {
    if (e.event_name != name) return false;
    for (const auto& [k, v] : tags) {
      if (tag(e, k) != v) return false;
    }
    return true;
  };
}

std::optional<std::string> skipReason() {
  static const std::optional<std::string> reason = NetnsLab::unavailable();
  return reason;
}

// Prints why the lab cannot run here, once per test.
bool skipped() {
  if (auto why = skipReason()) {
    std::printf("SKIPPED: %s\n", why->c_str());
    return true;
  }
  return false;
}

// One lab per test: nodes, agents, BMCs + monitors, an observer at the head.
struct Lab {
  Lab() : lab(kNodes, 0) {
    lab.startAgents(runfile("agent/ftb-agent"));
    story = std::make_unique<EventCollector>(
        lab.headEndpoint(), "event_space=FTB.JL.*|FTB.NLA.*|FTB.MPI.*|FTB.IPMI.*|FTB.AGENT");
    for (const auto& node : kNodes) {
      bmcs[node] = std::make_unique<IpmiSimProcess>();
      monitors[node] = std::make_unique<MonitorProcess>(
          rig.flags({node + "=" + bmcs[node]->address()}, {"--agent-endpoint=" + lab.nodeEndpoint(node),
                                                          "--interval-ms=500", "--log-level=info"}));
    }
    for (const auto& node : kNodes) {
      BOOST_REQUIRE_MESSAGE(story->waitFor(ftb::ipmi::testing::named("FTB_IPMI_BMC_ONLINE", node), 20s),
                            node << "'s BMC never came online at the head");
    }
  }

  // Starts ftb-run in the head; `extra` goes before "--".
  pid_t start(const std::string& job, std::vector<std::string> extra) {
    setenv("OMPI_MCA_mca_base_param_files", lab.mcaParamFile().c_str(), 1);
    setenv("FTB_AGENT_ENDPOINT", lab.headEndpoint().c_str(), 1);
    log = lab.dir() + "/ftb-run-" + job + ".log";
    std::vector<std::string> argv = {runfile("components/launcher_bridge/ftb-run"), "--job", job, "--nodes",
                                     "n1,n2,n3", "--ranks-per-node", "2",
                                     "--checkpoint-deadline-ms", "4000"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(runfile("components/mpi_bridge/examples/stencil"));
    argv.insert(argv.end(), kStencil.begin(), kStencil.end());
    return lab.spawn(lab.inHead(argv), log);
  }

  // Waits for ftb-run to end; returns the stencil's RESULT line (checked: exit 0).
  std::string finish(pid_t pid) {
    auto code = ftb::launcher::lab::waitExit(pid, 180000);
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BOOST_REQUIRE_MESSAGE(code.has_value(), "ftb-run did not finish in 180 s:\n" << text);
    BOOST_REQUIRE_MESSAGE(*code == 0, "ftb-run exited " << *code << ":\n" << text);
    std::string result;  // the last RESULT line (a relaunch prints only one)
    for (std::size_t at = text.find("RESULT "); at != std::string::npos; at = text.find("RESULT ", at + 1)) {
      result = text.substr(at, text.find('\n', at) - at);
    }
    BOOST_REQUIRE_MESSAGE(!result.empty(), "no RESULT line:\n" << text);
    return result;
  }

  Event require(const std::function<bool(const Event&)>& p, const std::string& what, std::size_t from = 0,
                std::chrono::milliseconds timeout = 30s) {
    auto e = story->waitFor(p, timeout, from);
    if (!e) {
      std::ifstream in(log);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      BOOST_FAIL("never saw " << what << "; ftb-run's log:\n" << text.substr(text.size() > 4000 ? text.size() - 4000 : 0));
    }
    return *e;
  }

  // Every rank restored for `corr` (the `moved` ones rebuilt from other
  // nodes), then the launcher says the job runs again; returns that event.
  Event requireRestored(const std::string& corr, const std::vector<int>& moved) {
    for (int rank = 0; rank < 6; ++rank) {
      Event done = require(is("FTB_RESTART_DONE", {{"corr", corr}, {"rank", std::to_string(rank)}}),
                           "FTB_RESTART_DONE of rank " + std::to_string(rank));
      const bool rebuilt = tag(done, "rebuilt") != "none";
      const bool was_moved = std::find(moved.begin(), moved.end(), rank) != moved.end();
      BOOST_TEST(rebuilt == was_moved, "rank " << rank << " rebuilt=" << tag(done, "rebuilt"));
    }
    return require(is("FTB_JOB_STATE", {{"state", "running"}, {"corr", corr}}), "running again");
  }

  // The job computes: an operator's checkpoint request is answered by every rank.
  void awaitComputing(const std::string& job) {
    auto op = ftb::Client::connect({.event_space = "FTB.JL." + job, .client_name = "lab-operator",
                                    .agent_endpoint = lab.headEndpoint()});
    BOOST_REQUIRE_MESSAGE(op.ok(), op.status().toString());
    BOOST_REQUIRE((*op)->declare({{"FTB_CHECKPOINT_REQUEST", ftb::Severity::kInfo}}).ok());
    require(is("FTB_JOB_STATE", {{"state", "launched"}}), "the launch of " + job);
    // The ranks subscribe once MPI is up; a request before that is reported missed: ask again.
    for (int attempt = 1;; ++attempt) {
      const std::string corr = job + "-op" + std::to_string(attempt);
      BOOST_REQUIRE((*op)->publish("FTB_CHECKPOINT_REQUEST", "lab", {{"corr", corr}}).ok());
      Event answer = require(
          [&](const Event& e) {
            return (e.event_name == "FTB_CHECKPOINT_OUTCOME" || e.event_name == "FTB_CHECKPOINT_MISSED") &&
                   tag(e, "corr") == corr;
          },
          "the outcome of checkpoint " + corr);
      if (answer.event_name == "FTB_CHECKPOINT_OUTCOME") {
        BOOST_TEST(tag(answer, "ranks_done") == "6");
        break;
      }
      if (attempt == 5) require([](const Event&) { return false; }, "any of 5 checkpoint requests answered", 0, 0ms);
    }
    (void)(*op)->disconnect();
  }

  NetnsLab lab;
  MonitorRig rig;
  std::unique_ptr<EventCollector> story;
  std::map<std::string, std::unique_ptr<IpmiSimProcess>> bmcs;
  std::map<std::string, std::unique_ptr<MonitorProcess>> monitors;
  std::string log;
};

// The failure-free answer, computed once per test binary.
std::string baseline() {
  static std::string result;
  if (result.empty()) {
    Lab lab;
    const double t0 = now();
    result = lab.finish(lab.start("BASE", {}));
    std::printf("BENCH failure-free run through ftb-run (6 ranks, 150 iterations): %.2f s\n", now() - t0);
  }
  return result;
}

void printSplit(const char* scenario, double injected, const Event& detected, const Event& decided,
                const std::optional<Event>& checkpointed, const Event& relaunched, const Event& running) {
  const double ck = checkpointed ? seconds(*checkpointed) : seconds(decided);
  std::printf(
      "BENCH %s: fault -> computing again %.3f s = detection %.3f + decision %.3f + checkpoint %.3f + "
      "relaunch %.3f + restore %.3f\n",
      scenario, seconds(running) - injected, seconds(detected) - injected, seconds(decided) - seconds(detected),
      ck - seconds(decided), seconds(relaunched) - ck, seconds(running) - seconds(relaunched));
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
  const double injected = now();
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");  // FAN1 to 0 RPM, with a SEL record

  Event fanfail = lab.require(ftb::ipmi::testing::named("FTB_IPMI_FANFAIL", "n2"), "FTB_IPMI_FANFAIL of n2");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  BOOST_TEST(tag(decision, "ranks") == "2,3");
  const std::string corr = tag(decision, "corr");
  Event pic = lab.require(is("FTB_MIGRATE_PIC", {{"corr", corr}, {"source", "n2"}}), "FTB_MIGRATE_PIC");
  BOOST_TEST(tag(pic, "ranks") == "2,3");
  lab.require(is("FTB_NLA_STATE", {{"host", "n2"}, {"state", "MIGRATION_INACTIVE"}, {"corr", corr}}), "n2 INACTIVE");
  lab.require(is("FTB_MIGRATE_IPT", {{"corr", corr}, {"target", "n4"}, {"ranks", "2,3"}}), "FTB_MIGRATE_IPT");
  Event relaunched = lab.require(is("FTB_JOB_STATE", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  // The moved ranks' node-local copies stayed on n2: they are rebuilt from other nodes.
  Event running = lab.requireRestored(corr, {2, 3});
  BOOST_TEST(lab.finish(pid) == expected);
  printSplit("fan failure, migrate 2 ranks to the spare", injected, fanfail, decision, pic, relaunched, running);

  // Healthy again: n2 becomes a spare.
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 100 1");
  lab.require(ftb::ipmi::testing::named("FTB_IPMI_NORMAL", "n2"), "FTB_IPMI_NORMAL of n2");
}

BOOST_AUTO_TEST_CASE(node_n3_killed_outright_is_relaunched_on_the_spare_from_memory) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  pid_t pid = lab.start("KILL", {"--spares", "n4"});
  lab.awaitComputing("KILL");
  const double injected = now();
  lab.lab.killNode("n3");  // its agent, orted, ranks and /dev/shm

  Event decision = lab.require(is("FTB_DECISION", {{"action", "relaunch"}, {"node", "n3"}}), "the relaunch decision");
  BOOST_TEST(tag(decision, "target") == "n4");
  const std::string corr = tag(decision, "corr");
  Event relaunched = lab.require(is("FTB_JOB_STATE", {{"state", "relaunched"}, {"corr", corr}}), "the relaunch");
  Event running = lab.requireRestored(corr, {4, 5});
  BOOST_TEST(lab.finish(pid) == expected);
  printSplit("node killed, relaunch on the spare", injected, decision, decision, std::nullopt, relaunched, running);
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
  for (const char* node : {"n1", "n2", "n3"}) lab.bmcs[node]->command("sensor_set_value 0x20 0 1 45 1");
  for (const char* node : {"n1", "n2", "n3"}) {
    lab.require(ftb::ipmi::testing::named("FTB_IPMI_NORMAL", node), std::string("FTB_IPMI_NORMAL of ") + node);
  }
  BOOST_TEST(lab.finish(pid) == expected);
  BOOST_TEST(!lab.story->waitFor(is("FTB_JOB_STATE", {{"state", "relaunched"}}), 0ms));
}

BOOST_AUTO_TEST_CASE(slurm_drains_the_failing_node_and_resumes_it_when_healthy) {
  if (skipped()) return;
  const std::string expected = baseline();
  Lab lab;
  lab.lab.startSlurm();
  setenv("SLURM_CONF", lab.lab.slurmConf().c_str(), 1);
  pid_t pid = lab.start("SLURM", {"--spares", "n4", "--slurm", "on"});
  lab.awaitComputing("SLURM");
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 0 1");
  Event decision = lab.require(is("FTB_DECISION", {{"action", "migrate"}, {"node", "n2"}}), "the migrate decision");
  const std::string corr = tag(decision, "corr");
  // Drained with ftb's reason (drng while its ranks still run, drained after).
  BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState("n2").find("ftb: migrated off (" + corr + ")") != std::string::npos; }),
             lab.lab.slurmState("n2"));
  lab.requireRestored(corr, {2, 3});
  // Healthy again while the job still runs: a spare, resumed in Slurm.
  lab.bmcs["n2"]->command("sensor_set_value 0x20 0 3 100 1");
  lab.require(is("FTB_DECISION", {{"action", "spare"}, {"node", "n2"}}), "the spare decision");
  BOOST_TEST(ftb::testing::waitFor([&] { return lab.lab.slurmState("n2").rfind("idle", 0) == 0; }),
             lab.lab.slurmState("n2"));
  BOOST_TEST(lab.finish(pid) == expected);
  unsetenv("SLURM_CONF");
}
