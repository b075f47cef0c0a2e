// Every level restores bit-exact under real Open MPI: ranks placed on several
// "nodes" of this machine, a node's shared memory wiped as if the node died,
// the job relaunched with that node's ranks on a spare.
#define BOOST_TEST_MODULE mpi_bridge_restore
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "components/mpi_bridge/testing/mpi_job.h"
#include "tests/support/agent_process.h"

using ftb::mpi_bridge::testing::MpiJob;
using ftb::mpi_bridge::testing::MpiRun;
using ftb::testing::runfile;
using ftb::testing::TempDir;

namespace {

using Nodes = std::vector<std::string>;

std::string probe() { return runfile("components/mpi_bridge/tests/ckpt_probe"); }

MpiJob makeJob(const std::string& id) {
  MpiJob job(id, probe());
  job.setEnv("FTBCKPT_AGENT", "0");
  return job;
}

void requireWrote(const MpiRun& run, int checkpoints) {
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_REQUIRE_EQUAL(run.exit_code, 0);
  int wrote = 0;
  for (std::size_t p = 0; (p = run.output.find("WROTE ", p)) != std::string::npos; ++p) ++wrote;
  BOOST_REQUIRE_EQUAL(wrote, checkpoints);
}

// Checks every rank's VERIFY line: content identical and where it came from.
void requireVerified(const MpiRun& run, int ranks, int ckpt, const std::map<int, std::string>& rebuilt_ranks,
                     const std::string& rebuilt_how, const std::string& source_of_rebuilt) {
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_REQUIRE_EQUAL(run.exit_code, 0);
  for (int r = 0; r < ranks; ++r) {
    std::string line = run.lineWith("VERIFY rank=" + std::to_string(r) + " ");
    BOOST_TEST_INFO("rank " << r << ": " << line);
    BOOST_REQUIRE(!line.empty());
    BOOST_CHECK(line.find("ok=1 ckpt=" + std::to_string(ckpt) + " ") != std::string::npos);
    if (rebuilt_ranks.count(r)) {
      BOOST_CHECK(line.find("source=" + source_of_rebuilt + " rebuilt=" + rebuilt_how) != std::string::npos);
    } else {
      BOOST_CHECK(line.find("source=L1 rebuilt=none") != std::string::npos);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(l1_survives_the_processes) {
  auto job = makeJob("RT_L1");
  const Nodes nodes = {"n0", "n0", "n1", "n1"};
  requireWrote(job.run(nodes, {"write", "L1,L1,L1"}), 3);
  BOOST_CHECK_EQUAL(job.shmFiles("n0").size(), 4u);  // two slots per rank
  requireVerified(job.run(nodes, {"verify", "2"}), 4, 2, {}, "", "");
  BOOST_CHECK(job.shmFiles("n0").empty());  // a finished job frees its memory
}

BOOST_AUTO_TEST_CASE(l1_cannot_survive_a_lost_node) {
  auto job = makeJob("RT_L1LOST");
  requireWrote(job.run({"n0", "n1", "n0", "n1"}, {"write", "L1"}), 1);
  job.wipeNode("n1");
  MpiRun run = job.run({"n0", "n2", "n0", "n2"}, {"verify", "0"});
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_CHECK_EQUAL(run.exit_code, 4);
  BOOST_CHECK(run.output.find("no level can restore it") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(l2_partner_rebuilds_a_lost_node_on_a_spare) {
  auto job = makeJob("RT_L2");
  requireWrote(job.run({"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"}, {"write", "L2,L2"}), 2);
  job.wipeNode("n1");
  auto run = job.run({"n0", "spare", "n2", "n3", "n0", "spare", "n2", "n3"}, {"verify", "1"});
  requireVerified(run, 8, 1, {{1, ""}, {5, ""}}, "partner", "L2");
}

BOOST_AUTO_TEST_CASE(l3_xor_rebuilds_with_an_uneven_rank_count) {
  auto job = makeJob("RT_L3");
  job.setEnv("FTBCKPT_GROUP_SIZE", "3");
  // 7 ranks on 4 nodes: groups {0,2,4} and {1,3,5}; rank 6 (alone on n3) joins
  // the first, which lacks n3: groups of 4 and 3.
  requireWrote(job.run({"n0", "n0", "n1", "n1", "n2", "n2", "n3"}, {"write", "L3,L3,L3"}), 3);
  job.wipeNode("n0");
  auto run = job.run({"s0", "s0", "n1", "n1", "n2", "n2", "n3"}, {"verify", "2"});
  requireVerified(run, 7, 2, {{0, ""}, {1, ""}}, "xor", "L3");
}

BOOST_AUTO_TEST_CASE(l3_xor_in_groups_of_two_rebuilds_a_lost_node) {
  // Two nodes: groups of two, where the parity is the other member's data,
  // received straight into the parity section.
  auto job = makeJob("RT_L3P");
  requireWrote(job.run({"n0", "n1", "n0", "n1"}, {"write", "L3,L3"}), 2);
  job.wipeNode("n1");
  auto run = job.run({"n0", "s1", "n0", "s1"}, {"verify", "1"});
  requireVerified(run, 4, 1, {{1, ""}, {3, ""}}, "xor", "L3");
}

BOOST_AUTO_TEST_CASE(l4_reed_solomon_rebuilds_two_lost_nodes) {
  auto job = makeJob("RT_L4");
  job.setEnv("FTBCKPT_GROUP_SIZE", "4");
  job.setEnv("FTBCKPT_RS_M", "2");
  requireWrote(job.run({"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"}, {"write", "L4,L4"}), 2);
  job.wipeNode("n1");
  job.wipeNode("n3");
  auto run = job.run({"n0", "s1", "n2", "s3", "n0", "s1", "n2", "s3"}, {"verify", "1"});
  requireVerified(run, 8, 1, {{1, ""}, {3, ""}, {5, ""}, {7, ""}}, "rs", "L4");
}

BOOST_AUTO_TEST_CASE(too_many_lost_falls_back_to_the_flushed_copy) {
  TempDir flush;
  auto job = makeJob("RT_L5");
  job.setEnv("FTBCKPT_GROUP_SIZE", "4");
  job.setEnv("FTBCKPT_FLUSH_DIR", flush.path());
  job.setEnv("FTBCKPT_FLUSH_MBPS", "200");
  // Checkpoint 0 flushed (L5), checkpoint 1 with XOR only.
  requireWrote(job.run({"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"}, {"write", "L5,L3"}), 2);
  job.wipeNode("n1");
  job.wipeNode("n2");  // two members of every XOR group
  auto run = job.run({"n0", "s1", "s2", "n3", "n0", "s1", "s2", "n3"}, {"verify", "0"});
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_REQUIRE_EQUAL(run.exit_code, 0);
  for (int r = 0; r < 8; ++r) {
    std::string line = run.lineWith("VERIFY rank=" + std::to_string(r) + " ");
    BOOST_CHECK_MESSAGE(line.find("ok=1 ckpt=0 iteration=100 source=L5 rebuilt=flush") != std::string::npos, line);
  }
}

BOOST_AUTO_TEST_CASE(a_rank_that_dies_inside_a_checkpoint_leaves_the_one_before_restorable) {
  // Rank 2 dies inside checkpoint 1 (its own file half-written, before its
  // group's exchange: FTBCKPT_FAULT); its group's files of 1 are incomplete,
  // the other group's may be complete. Its node is lost too: the restart
  // takes checkpoint 0, whose slot checkpoint 1 did not touch, rank 2 rebuilt
  // from its parity.
  auto job = makeJob("RT_DIEIN");
  const Nodes nodes = {"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"};
  job.setEnv("FTBCKPT_FAULT", "checkpoint:2:1");
  MpiRun died = job.run(nodes, {"write", "L3,L3"});
  BOOST_TEST_INFO("mpirun output:\n" << died.output);
  BOOST_REQUIRE_NE(died.exit_code, 0);
  BOOST_REQUIRE(died.output.find("rank 2 dies here (FTBCKPT_FAULT: inside a checkpoint)") != std::string::npos);
  job.unsetEnv("FTBCKPT_FAULT");
  job.wipeNode("n2");
  auto run = job.run({"n0", "n1", "s2", "n3", "n0", "n1", "s2", "n3"}, {"verify", "0"});
  requireVerified(run, 8, 0, {{2, ""}, {6, ""}}, "xor", "L3");
}

namespace {

// Writes one checkpoint at `level`, flips a byte of `rank`'s file, restores.
MpiRun corruptAndRestore(const std::string& id, const Nodes& nodes, const std::string& level, int rank) {
  auto job = makeJob(id);
  requireWrote(job.run(nodes, {"write", level}), 1);
  job.corrupt(nodes[rank], rank);
  return job.run(nodes, {"verify", "0"});
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_corrupted_l1_buffer_is_detected) {
  MpiRun run = corruptAndRestore("RT_CRC1", {"n0", "n0", "n1", "n1"}, "L1", 2);
  BOOST_TEST_INFO("mpirun output:\n" << run.output);
  BOOST_CHECK_EQUAL(run.exit_code, 4);
  BOOST_CHECK(run.output.find("rank 2:") != std::string::npos);
  BOOST_CHECK(run.output.find("fails its checksum") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_corrupted_buffer_is_rebuilt_from_its_partner) {
  MpiRun run = corruptAndRestore("RT_CRC2", {"n0", "n1", "n0", "n1"}, "L2", 3);
  BOOST_CHECK(run.output.find("fails its checksum") != std::string::npos);
  requireVerified(run, 4, 0, {{3, ""}}, "partner", "L2");
}

namespace {

// Every checkpoint file of the job on `nodes`, by name, with its bytes.
std::map<std::string, std::string> contents(const MpiJob& job, const std::set<std::string>& nodes) {
  std::map<std::string, std::string> files;
  for (const auto& node : nodes) {
    for (const auto& f : job.shmFiles(node)) {
      std::ifstream in(f, std::ios::binary);
      files[f] = std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  return files;
}

// `placement` with every rank of a node in `lost` moved to its spare ("n1" -> "s1").
Nodes replaced(Nodes placement, const std::set<std::string>& lost, std::map<int, std::string>& moved) {
  for (std::size_t r = 0; r < placement.size(); ++r) {
    if (lost.count(placement[r])) {
      placement[r] = "s" + placement[r].substr(1);
      moved[static_cast<int>(r)] = "";
    }
  }
  return placement;
}

// Two node losses, one after the other, with no checkpoint between them.
struct TwoLosses {
  std::string level;  // of the two checkpoints written (ids 0 and 1)
  Nodes placement;
  std::set<std::string> first, second;  // nodes lost
  std::string rebuilt;                  // how a lost rank comes back: partner, xor, rs
};

// Re-protection in proportion to the loss: the ranks rebuilt after the first
// loss write their own files of the restored checkpoint again, and nothing
// else is written (the survivors' files stay byte for byte, in both slots).
// So the second loss, right after, restores that same checkpoint: the first
// loss's ranks from their new files, the second's rebuilt from them.
void requireWholeAgain(MpiJob job, const TwoLosses& t) {
  const int ranks = static_cast<int>(t.placement.size());
  requireWrote(job.run(t.placement, {"write", t.level + "," + t.level}), 2);
  std::set<std::string> untouched(t.placement.begin(), t.placement.end());
  for (const auto& node : t.first) {
    job.wipeNode(node);
    untouched.erase(node);
  }
  std::map<int, std::string> first_moved, second_moved;
  const Nodes after_first = replaced(t.placement, t.first, first_moved);
  const auto before = contents(job, untouched);
  requireVerified(job.run(after_first, {"restore", "1"}), ranks, 1, first_moved, t.rebuilt, t.level);
  const auto after = contents(job, untouched);
  for (const auto& [file, bytes] : before) {
    BOOST_CHECK_MESSAGE(after.count(file) && after.at(file) == bytes, file << " was written again or removed");
  }
  for (const auto& node : t.second) job.wipeNode(node);
  const Nodes after_second = replaced(after_first, t.second, second_moved);
  requireVerified(job.run(after_second, {"verify", "1"}), ranks, 1, second_moved, t.rebuilt, t.level);
}

const Nodes kFourNodesTwice = {"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"};

}  // namespace

BOOST_AUTO_TEST_CASE(l2_rebuilt_ranks_write_their_files_again_and_survive_a_second_loss) {
  auto job = makeJob("RT_RP2");
  job.setEnv("FTBCKPT_GROUP_SIZE", "4");
  requireWholeAgain(std::move(job), {"L2", kFourNodesTwice, {"n1"}, {"n2"}, "partner"});
}

BOOST_AUTO_TEST_CASE(l3_rebuilt_ranks_write_their_parity_again_and_survive_a_second_loss) {
  auto job = makeJob("RT_RP3");
  job.setEnv("FTBCKPT_GROUP_SIZE", "4");
  requireWholeAgain(std::move(job), {"L3", kFourNodesTwice, {"n1"}, {"n2"}, "xor"});
}

BOOST_AUTO_TEST_CASE(l3_in_groups_of_two_the_rebuilt_rank_takes_its_partners_data_again) {
  requireWholeAgain(makeJob("RT_RP3P"), {"L3", {"n0", "n1", "n0", "n1"}, {"n1"}, {"n0"}, "xor"});
}

BOOST_AUTO_TEST_CASE(l4_two_rebuilt_ranks_of_a_group_encode_each_others_parity_again) {
  auto job = makeJob("RT_RP4");
  job.setEnv("FTBCKPT_GROUP_SIZE", "4");
  job.setEnv("FTBCKPT_RS_M", "2");
  requireWholeAgain(std::move(job), {"L4", kFourNodesTwice, {"n1", "n3"}, {"n0", "n2"}, "rs"});
}
