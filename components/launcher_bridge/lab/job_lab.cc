#include "components/launcher_bridge/lab/job_lab.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>

namespace ftb::launcher::lab {

using namespace std::chrono_literals;
using ftb::ipmi::testing::IpmiSimProcess;
using ftb::ipmi::testing::MonitorProcess;
using ftb::testing::runfile;

std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}

double seconds(const Event& e) { return static_cast<double>(e.time_sec) + e.time_nsec * 1e-9; }

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::function<bool(const Event&)> is(const std::string& name, std::map<std::string, std::string> tags) {
  return [name, tags](const Event& e) {
    if (e.event_name != name) return false;
    for (const auto& [k, v] : tags) {
      if (tag(e, k) != v) return false;
    }
    return true;
  };
}

bool skipped() {
  static const std::optional<std::string> why = NetnsLab::unavailable();
  if (why) std::printf("SKIPPED: %s\n", why->c_str());
  return why.has_value();
}

JobLab::JobLab(JobShape s) : shape(std::move(s)), lab(shape.nodes, 0) {
  lab.startAgents(runfile("agent/ftb-agent"));
  story = std::make_unique<ftb::testing::EventCollector>(
      lab.headEndpoint(), "event_space=FTB.JL.*|FTB.NLA.*|FTB.MPI.*|FTB.IPMI.*|FTB.AGENT");
  for (const auto& node : shape.nodes) {
    bmcs[node] = std::make_unique<IpmiSimProcess>();
    monitors[node] = std::make_unique<MonitorProcess>(
        rig.flags({node + "=" + bmcs[node]->address()},
                  {"--agent-endpoint=" + lab.nodeEndpoint(node),
                   "--interval-ms=" + std::to_string(shape.ipmi_interval_ms), "--log-level=info"}));
  }
  for (const auto& node : shape.nodes) {
    BOOST_REQUIRE_MESSAGE(story->waitFor(ftb::ipmi::testing::named("FTB_IPMI_BMC_ONLINE", node), 20s),
                          node << "'s BMC never came online at the head");
  }
}

JobLab::~JobLab() {
  // Before the members go: the lab's namespaces, where the attempts were counted, go with `lab`.
  const std::string outside = lab.outsideTraffic();
  BOOST_TEST(outside.empty(), "processes in the lab tried to reach addresses outside it (loopback and "
                                  << lab.subnet() << " only; attempts per namespace): " << outside);
}

pid_t JobLab::start(const std::string& job, std::vector<std::string> extra) {
  std::string nodes;
  for (const auto& n : shape.job_nodes) nodes += (nodes.empty() ? "" : ",") + n;
  extra.insert(extra.begin(), {"--nodes", nodes});
  return launch(job, {}, std::move(extra));
}

pid_t JobLab::startInAllocation(const std::string& job, const std::vector<std::string>& allocation,
                                std::vector<std::string> extra) {
  return launch(job, allocation, std::move(extra));
}

pid_t JobLab::launch(const std::string& job, std::vector<std::string> argv, std::vector<std::string> extra) {
  setenv("OMPI_MCA_mca_base_param_files", lab.mcaParamFile().c_str(), 1);
  setenv("FTB_AGENT_ENDPOINT", lab.headEndpoint().c_str(), 1);
  log = lab.dir() + "/ftb-run-" + job + ".log";
  argv.insert(argv.end(), {runfile("components/launcher_bridge/ftb-run"), "--job", job, "--ranks-per-node",
                           std::to_string(shape.ranks_per_node), "--checkpoint-deadline-ms", "4000",
                           "--state-dir", lab.dir() + "/ftb-run-state"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.push_back(runfile("components/mpi_bridge/examples/stencil"));
  argv.insert(argv.end(), shape.stencil.begin(), shape.stencil.end());
  return lab.spawn(lab.inHead(argv), log);
}

pid_t JobLab::adopt(const std::string& job) {
  log = lab.dir() + "/ftb-run-" + job + "-adopted.log";
  return lab.spawn(lab.inHead({runfile("components/launcher_bridge/ftb-run"), "--adopt", job, "--state-dir",
                               lab.dir() + "/ftb-run-state", "--checkpoint-deadline-ms", "4000"}),
                   log);
}

namespace {

// The last `count` lines of a file that start with `prefix` ("" = any line).
std::string lastLines(const std::string& path, const std::string& prefix, std::size_t count) {
  std::ifstream in(path);
  std::deque<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(prefix)) continue;
    kept.push_back(std::move(line));
    if (kept.size() > count) kept.pop_front();
  }
  std::string text;
  for (const auto& line : kept) text += line + "\n";
  return text;
}

}  // namespace

std::string JobLab::logTail() const {
  // ftb-run's own decisions (its spdlog lines, not mpirun's help texts) and
  // what the head agent saw of the tree: together they explain a failed scenario.
  return "ftb-run's log lines:\n" + lastLines(log, "[20", 60) + "the head agent's last log lines:\n" +
         lastLines(lab.dir() + "/agent-head.log", "", 20) + "ftb-run's last output:\n" + lastLines(log, "", 25);
}

std::string JobLab::finish(pid_t pid) {
  auto code = waitExit(pid, 300000);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_REQUIRE_MESSAGE(code.has_value(), "ftb-run did not finish in 300 s:\n" << text);
  BOOST_REQUIRE_MESSAGE(*code == 0, "ftb-run exited " << *code << ":\n" << text);
  std::string result;  // the last RESULT line (a relaunch prints only one)
  for (std::size_t at = text.find("RESULT "); at != std::string::npos; at = text.find("RESULT ", at + 1)) {
    result = text.substr(at, text.find('\n', at) - at);
  }
  BOOST_REQUIRE_MESSAGE(!result.empty(), "no RESULT line:\n" << text);
  return result;
}

Event JobLab::require(const std::function<bool(const Event&)>& p, const std::string& what, std::size_t from,
                      std::chrono::milliseconds timeout) {
  auto e = story->waitFor(p, timeout, from);
  if (!e) BOOST_FAIL("never saw " << what << "\n" << logTail());
  return *e;
}

Event JobLab::requireRestored(const std::string& corr, const std::vector<int>& moved) {
  for (int rank = 0; rank < shape.ranks(); ++rank) {
    Event done = require(is("FTB_RESTART_DONE", {{"corr", corr}, {"rank", std::to_string(rank)}}),
                         "FTB_RESTART_DONE of rank " + std::to_string(rank));
    const bool rebuilt = tag(done, "rebuilt") != "none";
    const bool was_moved = std::find(moved.begin(), moved.end(), rank) != moved.end();
    BOOST_TEST(rebuilt == was_moved, "rank " << rank << " rebuilt=" << tag(done, "rebuilt"));
  }
  return require(is("FTB_JOB_STATE", {{"state", "running"}, {"corr", corr}}), "running again");
}

void JobLab::awaitComputing(const std::string& job) {
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
      BOOST_TEST(tag(answer, "ranks_done") == std::to_string(shape.ranks()));
      break;
    }
    if (attempt == 5) BOOST_FAIL("none of 5 checkpoint requests was answered by every rank");
  }
  (void)(*op)->disconnect();
}

}  // namespace ftb::launcher::lab
