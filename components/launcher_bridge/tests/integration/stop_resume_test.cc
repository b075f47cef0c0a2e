// Stop and resume with a real agent on loopback and mpirun on this machine:
// `ftb-run --stop JOB` makes the managing ftb-run ask for a final checkpoint at
// the level that outlives the job (L5, the flush), the job stops cleanly and
// its record is kept; `ftb-run --resume JOB` starts it again later on another
// node name (so nothing is found in node memory: the flush is read) and the
// answer is the one of an undisturbed run, bit for bit.
#define BOOST_TEST_MODULE launcher_stop_resume
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "components/launcher_bridge/tests/integration/ftb_run_fixture.h"
#include "components/mpi_bridge/testing/connected_ranks.h"
#include "components/mpi_bridge/testing/mpi_job.h"
#include "tests/support/event_collector.h"

using namespace std::chrono_literals;
using ftb::Event;
using ftb::launcher::testing::FtbRunFixture;
using ftb::launcher::testing::tag;
using ftb::testing::runfile;

namespace {

std::string resultLine(const std::string& log) {
  const auto at = log.find("RESULT ");
  return at == std::string::npos ? "" : log.substr(at, log.find('\n', at) - at);
}

// The ranks flush their L5 checkpoints into the test directory. A stopped
// job keeps its node memory for the resume; what it leaves on "localhost"
// (the resume runs elsewhere) is wiped, before too: a later run of job SR
// would otherwise start from an earlier run's checkpoint.
struct Setup : FtbRunFixture {
  Setup() {
    setenv("FTBCKPT_FLUSH_DIR", (dir.path() + "/flush").c_str(), 1);
    std::filesystem::create_directories(dir.path() + "/flush");
    ftb::mpi_bridge::testing::wipeJobMemory("SR");
  }
  ~Setup() { ftb::mpi_bridge::testing::wipeJobMemory("SR"); }
  int finish(pid_t pid, const std::string& name) {
    auto code = waitExit(pid, 180000);
    BOOST_TEST_INFO(name << ":\n" << log(name));
    BOOST_REQUIRE(code);
    return *code;
  }
};

// 15 s at least: a stop (an ftb-run process, the agent, the ranks' next loop
// call) must reach the job while it runs, on a loaded machine too.
const std::vector<std::string> kProgram = {"--", runfile("components/mpi_bridge/examples/stencil"), "--iterations",
                                           "750", "--iteration-ms", "20"};

std::vector<std::string> job(const std::string& id, const std::string& node) {
  std::vector<std::string> args{"--job", id, "--nodes", node, "--ranks-per-node", "2"};
  args.insert(args.end(), kProgram.begin(), kProgram.end());
  return args;
}

// Waits until `n` ranks of `job_id` are connected and subscribed (they then see FTB_STOP).
void awaitRanks(const std::string& endpoint, const std::string& job_id, int n) {
  BOOST_REQUIRE_MESSAGE(ftb::mpi_bridge::testing::awaitConnectedRanks(endpoint, job_id, n),
                        n << " ranks of " << job_id << " never connected");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_stopped_job_resumes_elsewhere_from_its_flushed_checkpoint_bit_exact) {
  Setup s;
  ftb::testing::EventCollector story(s.agent.ipcEndpoint(), "event_space=FTB.JL.SR|FTB.MPI.FTBCKPT");

  // The answer of an undisturbed run.
  BOOST_REQUIRE_EQUAL(s.finish(s.start(job("REF", "localhost"), "ref.log"), "ref.log"), 0);
  const std::string expected = resultLine(s.log("ref.log"));
  BOOST_REQUIRE(!expected.empty());

  const pid_t run = s.start(job("SR", "localhost"), "run.log");
  awaitRanks(s.agent.ipcEndpoint(), "SR", 2);
  const pid_t stop = s.start({"--stop", "SR"}, "stop.log");
  BOOST_REQUIRE_EQUAL(s.finish(stop, "stop.log"), 0);
  BOOST_TEST(s.log("stop.log").find("stopped") != std::string::npos, s.log("stop.log"));
  BOOST_REQUIRE_EQUAL(s.finish(run, "run.log"), 0);
  BOOST_TEST(resultLine(s.log("run.log")).empty(), "the stopped run must not have finished");

  auto request = story.waitFor([](const Event& e) { return e.event_name == "FTB_STOP"; }, 20s);
  BOOST_REQUIRE(request);
  BOOST_TEST(tag(*request, "level") == "L5");
  auto stopped = story.waitFor([](const Event& e) { return tag(e, "state") == "stopped"; }, 20s);
  BOOST_REQUIRE(stopped);
  const std::string record = s.log("state/SR.job");
  BOOST_TEST(record.find("state=stopped") != std::string::npos, record);
  BOOST_TEST(record.find("node=localhost") != std::string::npos, record);

  // Later, on another node name: node memory has nothing for it, the flush has.
  const pid_t resumed = s.start({"--resume", "SR", "--nodes", "127.0.0.1"}, "resume.log");
  BOOST_REQUIRE_EQUAL(s.finish(resumed, "resume.log"), 0);
  const std::string log = s.log("resume.log");
  BOOST_TEST(resultLine(log) == expected, log);
  BOOST_TEST(log.find("stencil: resumed at iteration ") != std::string::npos, log);
  auto restored = story.waitFor(
      [](const Event& e) { return e.event_name == "FTB_RESTART_DONE" && tag(e, "level") == "L5"; }, 20s);
  BOOST_TEST(restored.has_value(), "no rank restored from the flush (L5)");
  BOOST_TEST(story.waitFor([](const Event& e) { return tag(e, "state") == "resumed"; }, 0ms).has_value());
}

BOOST_AUTO_TEST_CASE(a_stop_without_a_flush_directory_is_refused_and_the_job_finishes) {
  Setup s;
  unsetenv("FTBCKPT_FLUSH_DIR");
  const pid_t run = s.start(job("NOFLUSH", "localhost"), "run.log");
  awaitRanks(s.agent.ipcEndpoint(), "NOFLUSH", 2);
  const pid_t stop = s.start({"--stop", "NOFLUSH"}, "stop.log");
  BOOST_CHECK_EQUAL(s.finish(stop, "stop.log"), 1);
  BOOST_TEST(s.log("stop.log").find("not stopped") != std::string::npos, s.log("stop.log"));
  BOOST_REQUIRE_EQUAL(s.finish(run, "run.log"), 0);
  BOOST_TEST(!resultLine(s.log("run.log")).empty(), "the job must have run to its end");
  // Its journal says it finished: there is nothing to resume.
  const std::string record = s.log("state/NOFLUSH.job");
  BOOST_TEST(record.find("state=finished") != std::string::npos, record);
}
