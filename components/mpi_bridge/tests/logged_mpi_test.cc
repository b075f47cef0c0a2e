// Local rollback's log under real Open MPI (logged_mpi.h): what the MPI_*
// calls interposed by ftbckpt record, what spoils an epoch and says why, and
// that a program computes the same with the log as without it.
#define BOOST_TEST_MODULE logged_mpi_test
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "components/mpi_bridge/testing/mpi_job.h"
#include "tests/support/agent_process.h"

using ftb::mpi_bridge::testing::MpiJob;
using ftb::mpi_bridge::testing::MpiRun;
using ftb::testing::runfile;

namespace {

const std::vector<std::string> kThreeNodes = {"n0", "n1", "n2"};

MpiRun probe(const std::string& scenario, const std::vector<std::pair<std::string, std::string>>& env = {}) {
  MpiJob job("LOG", runfile("components/mpi_bridge/tests/logging_probe"));
  job.setEnv("FTBCKPT_AGENT", "0");
  job.setEnv("FTBCKPT_LEVEL", "L1");
  job.setEnv("FTBCKPT_LOCAL_ROLLBACK", "1");
  for (const auto& [key, value] : env) job.setEnv(key, value);
  MpiRun run = job.run(kThreeNodes, {scenario});
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_REQUIRE_EQUAL(run.exit_code, 0);
  for (int r = 0; r < 3; ++r) BOOST_TEST(run.lineWith("CHECK rank=" + std::to_string(r) + " ") == "CHECK rank=" + std::to_string(r) + " ok=1");
  return run;
}

// Every line that starts with `prefix`.
std::vector<std::string> linesWith(const std::string& output, const std::string& prefix) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < output.size();) {
    std::size_t end = output.find('\n', at);
    if (end == std::string::npos) end = output.size();
    if (output.compare(at, prefix.size(), prefix) == 0) lines.push_back(output.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Why rank `rank`'s epoch cannot be replayed ("" if it can), as the probe printed it last.
std::string reasonOf(const MpiRun& run, int rank) {
  const std::string prefix = "REASON rank=" + std::to_string(rank) + " ";
  auto lines = linesWith(run.output, prefix);
  return lines.empty() ? "(no REASON line)" : lines.back().substr(prefix.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(covered_calls_are_logged_at_the_sender_counted_at_the_receiver_and_replayable) {
  MpiRun run = probe("covered");
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  for (int r = 0; r < 3; ++r) BOOST_TEST(reasonOf(run, r) == "");
  for (int r = 0; r < 3; ++r) {
    BOOST_TEST(contains(run.output, "ftbckpt: rank " + std::to_string(r) + ": message log peak "));
  }
  BOOST_TEST(!contains(run.output, "not replayable"));
}

BOOST_AUTO_TEST_CASE(an_uncovered_call_spoils_the_epoch_and_is_named) {
  MpiRun run = probe("uncovered");
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_TEST(reasonOf(run, 1) == "MPI_Reduce on the logged communicator (not covered by local rollback's log)");
  BOOST_TEST(contains(run.output, "not replayable since checkpoint line -1: MPI_Reduce"));
}

BOOST_AUTO_TEST_CASE(a_derived_communicator_spoils_the_epochs_it_is_made_and_used_in) {
  MpiRun run = probe("derived");
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  auto reasons = linesWith(run.output, "REASON rank=2 ");
  BOOST_REQUIRE_EQUAL(reasons.size(), 2u);
  BOOST_TEST(contains(reasons[0], "MPI_Comm_dup made a communicator from the logged one"));
  BOOST_TEST(contains(reasons[1], "MPI_Sendrecv on a communicator derived from the logged one"));
}

BOOST_AUTO_TEST_CASE(a_message_across_a_checkpoint_line_spoils_its_receivers_epoch) {
  MpiRun run = probe("crossed");
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_TEST(contains(reasonOf(run, 1), "a message from rank 0 to rank 1 crossed checkpoint line 0"));
  BOOST_TEST(reasonOf(run, 0) == "");
  BOOST_TEST(reasonOf(run, 2) == "");
}

BOOST_AUTO_TEST_CASE(a_log_past_its_bound_spoils_the_epoch_and_says_so) {
  MpiRun run = probe("bound", {{"FTBCKPT_LOG_MB", "1"}});
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_TEST(contains(reasonOf(run, 0), "the message log outgrew its bound of 1 MiB (FTBCKPT_LOG_MB)"));
}

BOOST_AUTO_TEST_CASE(a_checkpoint_line_starts_a_new_epoch) {
  MpiRun run = probe("line");
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_TEST(reasonOf(run, 0) == "");
}

BOOST_AUTO_TEST_CASE(without_local_rollback_nothing_is_logged) {
  MpiRun run = probe("passthrough", {{"FTBCKPT_LOCAL_ROLLBACK", "0"}});
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_TEST(!contains(run.output, "message log peak"));
}

namespace {

// `program` on 4 ranks with and without the log: the same RESULT, and with a
// checkpoint every 10 iterations every epoch stays replayable.
void sameWithTheLog(const std::string& program, const std::vector<std::string>& args) {
  auto run = [&](bool logged) {
    MpiJob job(logged ? "LOGGED" : "PLAIN", runfile("components/mpi_bridge/examples/" + program));
    job.setEnv("FTBCKPT_AGENT", "0");
    job.setEnv("FTBCKPT_LEVEL", "L1");
    if (logged) job.setEnv("FTBCKPT_LOCAL_ROLLBACK", "1");
    MpiRun r = job.run({"n0", "n1", "n0", "n1"}, args);
    BOOST_TEST_INFO("mpirun output:\n" << r.output);
    BOOST_REQUIRE_EQUAL(r.exit_code, 0);
    return r;
  };
  MpiRun plain = run(false), logged = run(true);
  BOOST_TEST_INFO("logged run:\n" << logged.output);
  BOOST_REQUIRE(!plain.lineWith("RESULT ").empty());
  BOOST_TEST(logged.lineWith("RESULT ") == plain.lineWith("RESULT "));
  BOOST_TEST(contains(logged.output, "ftbckpt: rank 3: message log peak "));
  BOOST_TEST(!contains(logged.output, "not replayable"));
}

}  // namespace

// Nonblocking halo exchanges.
BOOST_AUTO_TEST_CASE(the_stencil_computes_the_same_with_the_log) {
  sameWithTheLog("stencil", {"--iterations", "40", "--checkpoint-every", "10"});
}

// Wildcard receives, an allreduce and a broadcast every round.
BOOST_AUTO_TEST_CASE(the_master_worker_loop_computes_the_same_with_the_log) {
  sameWithTheLog("master_worker", {"--items", "120", "--checkpoint-every", "10"});
}

// Waitany and Waitsome at the master instead, on receives from each worker
// and from any source, and the workers' hashes of what they received checked
// against the master's record.
BOOST_AUTO_TEST_CASE(the_nonblocking_master_worker_loop_computes_the_same_with_the_log) {
  sameWithTheLog("master_worker", {"--items", "120", "--checkpoint-every", "10", "--nonblocking"});
  sameWithTheLog("master_worker", {"--items", "120", "--checkpoint-every", "10", "--nonblocking", "--any-source", "--gather"});
}
