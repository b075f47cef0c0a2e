// The event path with a real ftb-agent and ftbctl: a checkpoint requested in
// FTB.JL.<job> is answered by every rank with FTB_CHECKPOINT_DONE, and a
// migration moves the ranks of one node (checkpoint, exit 75, relaunch on the
// target, FTB_RESTART_DONE) and the job still finishes with the right answer.
#define BOOST_TEST_MODULE mpi_bridge_events
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <string>

#include "client/client.h"
#include "components/mpi_bridge/testing/connected_ranks.h"
#include "components/mpi_bridge/testing/mpi_job.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::mpi_bridge::testing::MpiJob;
using ftb::mpi_bridge::testing::MpiRun;
using ftb::testing::AgentProcess;
using ftb::testing::runfile;

namespace {

// 300 iterations of 40 ms: 12 s at least, so that requests (an ftbctl process,
// the agent, the rank's next loop call; two in a row in one case) arrive
// mid-run even on a loaded 2-core machine. The sleep does not change the answer.
const std::vector<std::string> kGrid = {"--nx", "64", "--ny", "32", "--iterations", "300"};
const std::vector<std::string> kArgs = {"--nx", "64", "--ny", "32", "--iterations", "300", "--iteration-ms", "40"};

MpiJob stencil(const std::string& id) {
  MpiJob job(id, runfile("components/mpi_bridge/examples/stencil"));
  job.setEnv("FTBCKPT_LEVEL", "L2");
  return job;
}

std::string result(const MpiRun& run) {
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_REQUIRE_EQUAL(run.exit_code, 0);
  return run.lineWith("RESULT ");
}

// The answer of an undisturbed run (the sleep per iteration does not change it).
std::string failureFree() {
  static const std::string answer = [] {
    auto job = stencil("EV_BASE");
    job.setEnv("FTBCKPT_AGENT", "0");
    return result(job.run({"n0", "n1", "n0", "n1"}, kGrid));
  }();
  return answer;
}

// Runs ftbctl and returns its stdout (the published event id).
std::string ftbctl(const AgentProcess& agent, const std::string& args) {
  std::string cmd = runfile("cli/ftbctl") + " --agent " + agent.ipcEndpoint() + " " + args;
  FILE* p = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p);
  std::string out;
  std::array<char, 256> buf;
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  BOOST_REQUIRE_EQUAL(pclose(p), 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Waits until `n` ranks of `job` are connected in FTB.MPI.FTBCKPT and subscribed.
void awaitRanks(const AgentProcess& agent, const std::string& job, int n) {
  BOOST_REQUIRE_MESSAGE(ftb::mpi_bridge::testing::awaitConnectedRanks(agent.ipcEndpoint(), job, n, 20s),
                        n << " ranks of " << job << " never connected");
}

// Collects events of the runtime until `done` says enough or the deadline passes.
std::vector<ftb::Event> collect(ftb::Client& client, ftb::SubscriptionId sub,
                                const std::function<bool(const std::vector<ftb::Event>&)>& done,
                                std::chrono::seconds deadline = 20s) {
  std::vector<ftb::Event> events;
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (!done(events) && std::chrono::steady_clock::now() < end) {
    auto n = client.poll(sub, 100ms);
    if (n.ok() && n->has_value() && (*n)->kind == ftb::Notification::Kind::kEvent) events.push_back((*n)->event);
  }
  return events;
}

std::vector<ftb::Event> named(const std::vector<ftb::Event>& events, const std::string& name) {
  std::vector<ftb::Event> out;
  for (const auto& e : events) {
    if (e.event_name == name) out.push_back(e);
  }
  return out;
}

struct Watcher {
  explicit Watcher(const AgentProcess& agent)
      : client(ftb::testing::connectOrFail(agent.ipcEndpoint(), "FTB.TEST.WATCH", "events_test")) {
    auto s = client->subscribe({.filter = "event_space=FTB.MPI.FTBCKPT", .polling = true});
    BOOST_REQUIRE(s);
    sub = *s;
  }
  std::unique_ptr<ftb::Client> client;
  ftb::SubscriptionId sub = 0;
};

// A stencil job on n0,n1,n0,n1 whose ranks are connected to a fresh agent,
// and a watcher of FTB.MPI.FTBCKPT.
struct LiveJob {
  explicit LiveJob(const std::string& name, const std::vector<std::string>& nodes = {"n0", "n1", "n0", "n1"},
                   const std::map<std::string, std::string>& env = {})
      : watch(agent), job(stencil(name)), id(job.jobId()) {
    job.setEnv("FTB_AGENT_ENDPOINT", agent.ipcEndpoint());
    for (const auto& [key, value] : env) job.setEnv(key, value);
    job.start(nodes, kArgs);
    awaitRanks(agent, id, 4);
  }
  // Publishes a launcher request in FTB.JL.<job> with ftbctl; returns its event id.
  std::string request(const std::string& name_and_options) {
    return ftbctl(agent, "publish --space FTB.JL." + id + " --job-id " + id + " --name " + name_and_options);
  }
  std::vector<ftb::Event> awaitEvents(const std::string& name, std::size_t n) {
    return named(collect(*watch.client, watch.sub, [&](const auto& ev) { return named(ev, name).size() >= n; }), name);
  }

  AgentProcess agent;
  Watcher watch;
  MpiJob job;
  std::string id;
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_rank_answers_a_checkpoint_request) {
  const std::string expected = failureFree();
  LiveJob live("EV_CKPT");
  const std::string request_id = live.request("FTB_CHECKPOINT --severity info --tag corr=C1 --tag level=L2");
  auto done = live.awaitEvents("FTB_CHECKPOINT_DONE", 4);
  BOOST_REQUIRE_EQUAL(done.size(), 4u);
  std::set<std::string> ranks;
  for (const auto& e : done) {
    ranks.insert(e.tags.at("rank"));
    BOOST_CHECK(e.type == ftb::EventType::kResponse);
    BOOST_REQUIRE(e.response_to.has_value());
    BOOST_CHECK_EQUAL(e.response_to->toString(), request_id);
    BOOST_CHECK_EQUAL(e.tags.at("corr"), "C1");
    BOOST_CHECK_EQUAL(e.tags.at("level"), "L2");
    BOOST_CHECK_GT(std::stoull(e.tags.at("bytes")), 64u * 32 * 8);
    BOOST_CHECK(e.payload.find("corr=C1") != std::string::npos);
  }
  BOOST_CHECK((ranks == std::set<std::string>{"0", "1", "2", "3"}));
  BOOST_CHECK_EQUAL(result(live.job.finish()), expected);
}

BOOST_AUTO_TEST_CASE(a_migration_moves_the_ranks_of_a_node) {
  const std::string expected = failureFree();
  LiveJob live("EV_MIG");
  live.request("FTB_MIGRATE --severity warning --tag corr=M1 --tag source=n1");
  MpiRun first = live.job.finish();
  BOOST_TEST_INFO("mpirun output:\n" << first.output);
  BOOST_REQUIRE_EQUAL(first.exit_code, 75);  // relaunch me
  BOOST_REQUIRE(first.lineWith("RESULT ").empty());
  auto events = collect(*live.watch.client, live.watch.sub, [](const auto& ev) {
    return named(ev, "FTB_CHECKPOINT_DONE").size() >= 4 && named(ev, "FTB_MIGRATE_PIC").size() >= 1;
  });
  BOOST_REQUIRE_EQUAL(named(events, "FTB_CHECKPOINT_DONE").size(), 4u);
  auto pic = named(events, "FTB_MIGRATE_PIC");
  BOOST_REQUIRE_EQUAL(pic.size(), 1u);
  BOOST_CHECK_EQUAL(pic[0].tags.at("ranks"), "1,3");
  BOOST_CHECK_EQUAL(pic[0].tags.at("source"), "n1");
  BOOST_CHECK_EQUAL(pic[0].tags.at("corr"), "M1");

  // The launcher's part: the ranks of n1 restart on n2, the job learns its corr.
  live.job.setEnv("FTB_CORR_ID", "M1");
  MpiRun second = live.job.run({"n0", "n2", "n0", "n2"}, kArgs);
  BOOST_CHECK_EQUAL(result(second), expected);
  BOOST_CHECK(second.lineWith("stencil: resumed at iteration 0").empty());
  BOOST_CHECK(!second.lineWith("stencil: resumed at iteration").empty());
  auto restarts = live.awaitEvents("FTB_RESTART_DONE", 4);
  BOOST_REQUIRE_EQUAL(restarts.size(), 4u);
  std::map<std::string, std::string> rebuilt;
  for (const auto& e : restarts) {
    BOOST_CHECK_EQUAL(e.tags.at("corr"), "M1");
    rebuilt[e.tags.at("rank")] = e.tags.at("level") + "/" + e.tags.at("rebuilt");
  }
  BOOST_CHECK_EQUAL(rebuilt["0"], "L1/none");
  BOOST_CHECK_EQUAL(rebuilt["1"], "L2/partner");
  BOOST_CHECK_EQUAL(rebuilt["2"], "L1/none");
  BOOST_CHECK_EQUAL(rebuilt["3"], "L2/partner");
}

// A migration's L2 checkpoint copies only the leaving node's blobs. If another
// node dies before the relaunch, that checkpoint cannot restore it: the job
// resumes from the full checkpoint before, and still gets the right answer.
BOOST_AUTO_TEST_CASE(a_node_lost_after_a_migration_checkpoint_resumes_from_the_one_before) {
  const std::string expected = failureFree();
  LiveJob live("EV_MIGLOSS", {"n0", "n1", "n2", "n3"});  // one group of four, a partner ring
  live.request("FTB_CHECKPOINT --severity info --tag corr=C1 --tag level=L2");
  auto done = live.awaitEvents("FTB_CHECKPOINT_DONE", 4);
  BOOST_REQUIRE_EQUAL(done.size(), 4u);
  const std::string full_id = done[0].tags.at("ckpt_id");
  live.request("FTB_MIGRATE --severity warning --tag corr=M2 --tag source=n1");
  MpiRun first = live.job.finish();
  BOOST_TEST_INFO("mpirun output:\n" << first.output);
  BOOST_REQUIRE_EQUAL(first.exit_code, 75);

  // Rank 1 moves to s1 as planned, but n3 dies meanwhile: rank 3's partner
  // copy exists only in the full checkpoint.
  live.job.wipeNode("n3");
  live.job.setEnv("FTB_CORR_ID", "M2");
  MpiRun second = live.job.run({"n0", "s1", "n2", "s3"}, kArgs);
  BOOST_CHECK_EQUAL(result(second), expected);
  auto restarts = live.awaitEvents("FTB_RESTART_DONE", 4);
  BOOST_REQUIRE_EQUAL(restarts.size(), 4u);
  for (const auto& e : restarts) {
    BOOST_TEST_CONTEXT("rank " << e.tags.at("rank")) {
      BOOST_CHECK_EQUAL(e.tags.at("ckpt_id"), full_id);
      const bool moved = e.tags.at("rank") == "1" || e.tags.at("rank") == "3";
      BOOST_CHECK_EQUAL(e.tags.at("rebuilt"), moved ? "partner" : "none");
    }
  }
}

BOOST_AUTO_TEST_CASE(an_auto_schedule_publishes_each_levels_interval_and_why) {
  const std::string expected = failureFree();
  LiveJob live("EV_AUTO", {"n0", "n1", "n0", "n1"}, {{"FTBCKPT_SCHEDULE", "auto:L1,L2"}, {"FTBCKPT_MTBF", "3600"}});
  // Each level is measured once, then both have a Young/Daly interval.
  auto chosen = [](const std::vector<ftb::Event>& events, const std::string& level) {
    for (const auto& e : named(events, "FTB_CKPT_SCHEDULE")) {
      if (e.tags.at("level") == level && e.tags.at("why").find("Young/Daly") != std::string::npos) return &e;
    }
    return static_cast<const ftb::Event*>(nullptr);
  };
  auto events = collect(*live.watch.client, live.watch.sub,
                        [&](const auto& ev) { return chosen(ev, "L1") && chosen(ev, "L2"); });
  for (const char* level : {"L1", "L2"}) {
    const ftb::Event* e = chosen(events, level);
    BOOST_REQUIRE_MESSAGE(e, "no FTB_CKPT_SCHEDULE with a Young/Daly interval for " << level);
    BOOST_CHECK_GT(std::stod(e->tags.at("interval_s")), 0.0);
    BOOST_CHECK_GT(std::stod(e->tags.at("cost_s")), 0.0);
    BOOST_CHECK_GE(std::stod(e->tags.at("mtbf_s")), 3600.0);
  }
  BOOST_CHECK_EQUAL(result(live.job.finish()), expected);
}

// ftb-run hands each run the job's failure history: with 1 process and 3 node
// failures over the job's first hour (FTB_FAILURES, FTB_JOB_STARTED) and a
// prior MTBF of one hour, node failures come every (3600 + 3600) / (1 + 3) =
// 1800 s, and failures of any process, node loss included, every 7200 / 5 =
// 1440 s: L2 (there for nodes) and L1 (there for processes) are timed by those.
BOOST_AUTO_TEST_CASE(an_auto_schedule_takes_its_failure_rates_from_the_jobs_history) {
  const std::string started = std::to_string(std::time(nullptr) - 3600);
  LiveJob live("EV_RATES", {"n0", "n1", "n0", "n1"},
               {{"FTBCKPT_SCHEDULE", "auto:L1,L2"}, {"FTBCKPT_MTBF", "3600"},
                {"FTB_FAILURES", "process:1,node:3"}, {"FTB_JOB_STARTED", started}});
  auto mtbf = [](const std::vector<ftb::Event>& events, const std::string& level) {
    for (const auto& e : named(events, "FTB_CKPT_SCHEDULE")) {
      if (e.tags.at("level") == level && e.tags.count("mtbf_s")) return std::stod(e.tags.at("mtbf_s"));
    }
    return 0.0;
  };
  auto events = collect(*live.watch.client, live.watch.sub,
                        [&](const auto& ev) { return mtbf(ev, "L1") > 0 && mtbf(ev, "L2") > 0; });
  // The run's own seconds add a little to the 3600 s that passed before it.
  BOOST_CHECK_CLOSE(mtbf(events, "L2"), 1800.0, 2.0);
  BOOST_CHECK_CLOSE(mtbf(events, "L1"), 1440.0, 2.0);
  live.job.finish();
}

// The launcher's live update: a run-through recovery relaunches nothing, so
// ftb-run publishes the job's new failure totals (FTB_FAILURES) and the running
// job's schedule takes them: from no failures (7200 s for both) to the totals
// of the case above (L2 1800 s, L1 1440 s) without a restart. Totals, not
// increments: the same report twice changes nothing more.
BOOST_AUTO_TEST_CASE(a_running_job_takes_the_failure_totals_the_launcher_publishes) {
  const std::string started = std::to_string(std::time(nullptr) - 3600);
  LiveJob live("EV_LIVE_RATES", {"n0", "n1", "n0", "n1"},
               {{"FTBCKPT_SCHEDULE", "auto:L1,L2"}, {"FTBCKPT_MTBF", "3600"}, {"FTB_JOB_STARTED", started}});
  auto newest_mtbf = [](const std::vector<ftb::Event>& events, const std::string& level) {
    double mtbf = 0;
    for (const auto& e : named(events, "FTB_CKPT_SCHEDULE")) {
      if (e.tags.at("level") == level && e.tags.count("mtbf_s")) mtbf = std::stod(e.tags.at("mtbf_s"));
    }
    return mtbf;
  };
  auto before = collect(*live.watch.client, live.watch.sub,
                        [&](const auto& ev) { return newest_mtbf(ev, "L1") > 0 && newest_mtbf(ev, "L2") > 0; });
  BOOST_CHECK_CLOSE(newest_mtbf(before, "L2"), 7200.0, 2.0);
  BOOST_CHECK_CLOSE(newest_mtbf(before, "L1"), 7200.0, 2.0);
  for (int i = 0; i < 2; ++i) live.request("FTB_FAILURES --severity info --tag failures=process:1,node:3");
  BOOST_CHECK_EQUAL(result(live.job.finish()), failureFree());
  // Rank 0 publishes every schedule, and its FTB_RANK_FINISHED last.
  auto after = collect(*live.watch.client, live.watch.sub, [](const auto& ev) {
    for (const auto& e : named(ev, "FTB_RANK_FINISHED")) {
      if (e.tags.at("rank") == "0") return true;
    }
    return false;
  });
  BOOST_CHECK_CLOSE(newest_mtbf(after, "L2"), 1800.0, 2.0);
  BOOST_CHECK_CLOSE(newest_mtbf(after, "L1"), 1440.0, 2.0);
}

BOOST_AUTO_TEST_CASE(without_an_agent_the_job_runs_and_says_so_once) {
  auto job = stencil("EV_NOAGENT");
  job.setEnv("FTB_AGENT_ENDPOINT", "ipc:///tmp/ftbckpt-no-agent-here.sock");
  job.setEnv("FTBCKPT_AGENT_TIMEOUT_MS", "200");
  std::vector<std::string> args = kGrid;
  args.insert(args.end(), {"--checkpoint-every", "25"});
  MpiRun run = job.run({"n0", "n1", "n0", "n1"}, args);
  BOOST_CHECK_EQUAL(result(run), failureFree());
  std::size_t first = run.output.find("not connected to an ftb agent");
  BOOST_CHECK(first != std::string::npos);
  BOOST_CHECK(run.output.find("not connected to an ftb agent", first + 1) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_stop_with_a_level_checkpoints_and_a_later_run_resumes) {
  const std::string expected = failureFree();
  LiveJob live("EV_STOP");
  live.request("FTB_STOP --severity warning --tag corr=S1 --tag level=L1 --tag reason=drain");
  MpiRun stopped = live.job.finish();
  BOOST_TEST_INFO("mpirun output:\n" << stopped.output);
  BOOST_REQUIRE_EQUAL(stopped.exit_code, 0);
  BOOST_REQUIRE(stopped.lineWith("RESULT ").empty());
  auto done = live.awaitEvents("FTB_CHECKPOINT_DONE", 4);
  BOOST_REQUIRE_EQUAL(done.size(), 4u);
  for (const auto& e : done) {
    BOOST_CHECK_EQUAL(e.tags.at("corr"), "S1");
    BOOST_CHECK_EQUAL(e.tags.at("level"), "L1");
  }
  BOOST_CHECK_EQUAL(live.job.shmFiles("n0").size() + live.job.shmFiles("n1").size(), 4u);  // kept for the restart
  MpiRun resumed = live.job.run({"n0", "n1", "n0", "n1"}, kArgs);
  BOOST_CHECK_EQUAL(result(resumed), expected);
  BOOST_CHECK(!resumed.lineWith("stencil: resumed at iteration").empty());
}
