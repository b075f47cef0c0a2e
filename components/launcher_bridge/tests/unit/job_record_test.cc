// The record of a stopped job (job_record.h): what is saved reads back the
// same, a bad file is refused naming its line, and a value that could not be
// read back is refused before anything is written.
#define BOOST_TEST_MODULE job_record
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "components/launcher_bridge/job_record.h"

using namespace ftb::launcher;

namespace {

struct Dir {
  Dir() {
    char templ[] = "/tmp/job-record-XXXXXX";
    path = mkdtemp(templ);
  }
  ~Dir() { std::filesystem::remove_all(path); }
  std::string path;
};

JobRecord sample() {
  JobRecord r;
  r.job_id = "J7";
  r.state = "stopped";
  r.attempt = 2;
  r.corr = "J7-S2";
  r.level = "L5";
  r.nodes = {"n1", "n2"};
  r.spares = {"n9"};
  r.ranks_per_node = 4;
  r.ranks = 12;  // three blocks of 4, one merged into a neighbour's node: 12 ranks on 2 nodes
  r.mpirun = "mpirun";
  r.mpirun_args = {"--mca", "btl self,vader,tcp"};
  r.run_through = true;
  r.node_encoders = true;
  r.program = {"/usr/bin/stencil", "--iterations", "100", "an argument with = and spaces"};
  r.keeper_pid = 4242;
  r.exit_file = "/var/lib/ftb-run/J7.exit";
  r.computing = true;
  r.started = 1795000000;
  r.process_failures = 3;
  r.node_failures = 1;
  r.table = {"n1 MIGRATION_READY 0,1,2,3", "n2 MIGRATION_INACTIVE -", "n9 MIGRATION_READY 4,5,6,7"};
  r.last_event = "n1/4242/1795000000123/1/17";
  r.repair_until_ms = 1795000012345;
  r.repair_corr = "rt-J7-2-r5";
  ftb::Event will;
  will.event_space = "FTB.MPI.FTBCKPT";
  will.event_name = "FTB_MPI_PROCS_DEAD";
  will.severity = ftb::Severity::kFatal;
  will.job_id = "J7";
  will.payload = "rank 5 lost\nwith a newline, which the hex form carries";
  will.tags = {{"rank", "5"}, {"node", "n2"}, {"attempt", "2"}};
  will.time_sec = 1795000010;
  will.time_nsec = 42;
  r.repair_will = will;
  r.run_through_done = {{3, {1795000001, 7}}, {6, {1795000002, 999999999}}};
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_saved_record_reads_back_the_same) {
  Dir dir;
  const std::string path = jobRecordPath(dir.path, "J7");
  BOOST_CHECK_EQUAL(path, dir.path + "/J7.job");
  BOOST_REQUIRE(saveJobRecord(path, sample()).ok());
  BOOST_CHECK(!std::filesystem::exists(path + ".tmp"));
  auto r = loadJobRecord(path);
  BOOST_REQUIRE_MESSAGE(r.ok(), r.status().message());
  const JobRecord want = sample();
  BOOST_CHECK_EQUAL(r->job_id, want.job_id);
  BOOST_CHECK_EQUAL(r->state, want.state);
  BOOST_CHECK_EQUAL(r->attempt, want.attempt);
  BOOST_CHECK_EQUAL(r->corr, want.corr);
  BOOST_CHECK_EQUAL(r->level, want.level);
  BOOST_TEST(r->nodes == want.nodes, boost::test_tools::per_element());
  BOOST_TEST(r->spares == want.spares, boost::test_tools::per_element());
  BOOST_CHECK_EQUAL(r->ranks_per_node, want.ranks_per_node);
  BOOST_CHECK_EQUAL(r->ranks, want.ranks);
  BOOST_CHECK_EQUAL(r->mpirun, want.mpirun);
  BOOST_TEST(r->mpirun_args == want.mpirun_args, boost::test_tools::per_element());
  BOOST_CHECK_EQUAL(r->run_through, want.run_through);
  BOOST_CHECK_EQUAL(r->node_encoders, want.node_encoders);
  BOOST_TEST(r->program == want.program, boost::test_tools::per_element());
  BOOST_CHECK_EQUAL(r->keeper_pid, want.keeper_pid);
  BOOST_CHECK_EQUAL(r->exit_file, want.exit_file);
  BOOST_CHECK_EQUAL(r->computing, want.computing);
  BOOST_CHECK_EQUAL(r->started, want.started);
  BOOST_CHECK_EQUAL(r->process_failures, want.process_failures);
  BOOST_CHECK_EQUAL(r->node_failures, want.node_failures);
  BOOST_TEST(r->table == want.table, boost::test_tools::per_element());
  BOOST_CHECK_EQUAL(r->last_event, want.last_event);
  BOOST_CHECK_EQUAL(r->repair_until_ms, want.repair_until_ms);
  BOOST_CHECK_EQUAL(r->repair_corr, want.repair_corr);
  BOOST_REQUIRE(r->repair_will.has_value());
  BOOST_CHECK_EQUAL(r->repair_will->event_name, want.repair_will->event_name);
  BOOST_CHECK_EQUAL(r->repair_will->payload, want.repair_will->payload);
  BOOST_CHECK(r->repair_will->tags == want.repair_will->tags);
  BOOST_CHECK_EQUAL(r->repair_will->time_nsec, want.repair_will->time_nsec);
  BOOST_CHECK(r->run_through_done == want.run_through_done);
}

BOOST_AUTO_TEST_CASE(a_record_without_a_repair_under_way_reads_back_none) {
  Dir dir;
  JobRecord plain = sample();
  plain.repair_until_ms = 0;  // the rest of the repair is then not written
  const std::string path = jobRecordPath(dir.path, "J7");
  BOOST_REQUIRE(saveJobRecord(path, plain).ok());
  auto r = loadJobRecord(path);
  BOOST_REQUIRE_MESSAGE(r.ok(), r.status().message());
  BOOST_CHECK_EQUAL(r->repair_until_ms, 0);
  BOOST_CHECK(r->repair_corr.empty());
  BOOST_CHECK(!r->repair_will.has_value());
}

BOOST_AUTO_TEST_CASE(a_missing_record_says_how_records_are_made) {
  Dir dir;
  auto r = loadJobRecord(jobRecordPath(dir.path, "NONE"));
  BOOST_REQUIRE(!r.ok());
  BOOST_CHECK(r.status().code() == ftb::Code::kNotFound);
  BOOST_CHECK_MESSAGE(r.status().message().find("--stop") != std::string::npos, r.status().message());
}

BOOST_AUTO_TEST_CASE(a_bad_line_is_refused_with_its_number) {
  Dir dir;
  const std::string path = dir.path + "/bad.job";
  for (const char* text : {"job=J\nnode=n1\nprogram=p\nattempt=x\n", "job=J\nnode=n1\nprogram=p\nnonsense\n",
                           "job=J\nnode=n1\nprogram=p\ncolour=blue\n", "job=J\nnode=n1\nprogram=p\nrepair_will=0g\n",
                           "job=J\nnode=n1\nprogram=p\nrun_through_done=3 x 1\n"}) {
    std::ofstream(path) << text;
    auto r = loadJobRecord(path);
    BOOST_REQUIRE(!r.ok());
    BOOST_CHECK(r.status().code() == ftb::Code::kInvalidArgument);
    BOOST_CHECK_MESSAGE(r.status().message().find(":4:") != std::string::npos, r.status().message());
  }
  std::ofstream(path) << "job=J\n";
  BOOST_CHECK(!loadJobRecord(path).ok());  // no nodes, no program
}

BOOST_AUTO_TEST_CASE(a_value_with_a_newline_is_refused_and_nothing_written) {
  Dir dir;
  JobRecord r = sample();
  r.program.push_back("two\nlines");
  const std::string path = jobRecordPath(dir.path, "J7");
  auto s = saveJobRecord(path, r);
  BOOST_CHECK(!s.ok());
  BOOST_CHECK(!std::filesystem::exists(path));
}
