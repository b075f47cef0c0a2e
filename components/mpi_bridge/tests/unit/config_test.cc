#define BOOST_TEST_MODULE mpi_bridge_config
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "client/payload_fields.h"
#include "components/mpi_bridge/bridge.h"
#include "components/mpi_bridge/config.h"
#include "components/mpi_bridge/ftbckpt.hpp"

using namespace ftb::mpi_bridge;

namespace {

// Sets environment variables for one test and removes them afterwards.
struct Env {
  explicit Env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto [k, v] : vars) {
      setenv(k, v, 1);
      keys.push_back(k);
    }
  }
  ~Env() {
    for (auto k : keys) unsetenv(k);
  }
  std::vector<const char*> keys;
};

}  // namespace

BOOST_AUTO_TEST_CASE(levels_parse) {
  BOOST_CHECK(*parseLevel("L3") == Level::kL3);
  BOOST_CHECK(*parseLevel("l5") == Level::kL5);
  BOOST_CHECK(*parseLevel("2") == Level::kL2);
  BOOST_CHECK(!parseLevel("L6").ok());
  BOOST_CHECK(!parseLevel("").ok());
}

BOOST_AUTO_TEST_CASE(environment_is_read) {
  Env env({{"FTB_JOB_ID", "J42"}, {"FTBCKPT_LEVEL", "L4"}, {"FTBCKPT_GROUP_SIZE", "6"}, {"FTBCKPT_RS_M", "3"},
           {"FTBCKPT_DOMAIN_MAP", "n0=rackA,n1=rackA"}, {"FTBCKPT_NODE_MAP", "n0,n1,n2"}, {"FTBCKPT_MTBF", "60.5"}});
  auto c = configFromEnvironment();
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
  BOOST_CHECK_EQUAL(c->job_id, "J42");
  BOOST_CHECK(c->level == Level::kL4);
  BOOST_CHECK_EQUAL(c->group_size, 6);
  BOOST_CHECK_EQUAL(c->rs_m, 3);
  BOOST_CHECK_EQUAL(c->mtbf_seconds, 60.5);
  BOOST_CHECK_EQUAL(c->domain_of_node.at("n1"), "rackA");
  BOOST_CHECK_EQUAL(*nodeOfRank(*c, 2), "n2");
  BOOST_CHECK(!nodeOfRank(*c, 3).ok());
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_variable) {
  for (auto [k, v] : {std::pair{"FTBCKPT_GROUP_SIZE", "1"}, {"FTBCKPT_LEVEL", "L9"}, {"FTBCKPT_INTERVAL", "-3"},
                      {"FTB_JOB_ID", "a/b"}, {"FTBCKPT_DOMAIN_MAP", "n0"}, {"FTBCKPT_MIGRATE_LEVEL", "L1"}}) {
    Env env({{k, v}});
    auto c = configFromEnvironment();
    BOOST_TEST_INFO(k << "=" << v);
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK(c.status().message().find(k) != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(requests_parse_from_tags_or_payload) {
  ftb::Event e;
  e.event_name = "FTB_CHECKPOINT";
  e.tags = {{"corr", "C9"}, {"level", "L3"}};
  auto r = parseRequest(e);
  BOOST_REQUIRE(r.ok());
  BOOST_CHECK(r->kind == RequestKind::kCheckpoint);
  BOOST_CHECK(*r->level == Level::kL3);
  BOOST_CHECK_EQUAL(r->corr, "C9");

  e.event_name = "FTB_MIGRATE";
  e.tags.clear();
  e.payload = "move away corr=M2 source=node7";
  r = parseRequest(e);
  BOOST_REQUIRE(r.ok());
  BOOST_CHECK_EQUAL(r->source, "node7");
  BOOST_CHECK_EQUAL(r->corr, "M2");

  e.payload = "corr=M3";
  BOOST_CHECK(parseRequest(e).status().code() == ftb::Code::kInvalidArgument);
  e.event_name = "FTB_CHECKPOINT";
  e.tags = {{"level", "L7"}};
  BOOST_CHECK(parseRequest(e).status().code() == ftb::Code::kInvalidArgument);
  e.event_name = "FTB_JOB_STATE";
  BOOST_CHECK(parseRequest(e).status().code() == ftb::Code::kNotFound);
}

BOOST_AUTO_TEST_CASE(young_interval) {
  BOOST_CHECK_CLOSE(youngInterval(2.0, 3600), 120.0, 1e-9);
  BOOST_CHECK_EQUAL(youngInterval(0, 3600), 0.0);
}

BOOST_AUTO_TEST_CASE(payload_repeats_the_tags) {
  BOOST_CHECK_EQUAL(ftb::formatTagsPayload("done", ftb::Tags{{"corr", "C1"}, {"rank", "3"}}),
                    "done corr=C1 rank=3");
}

BOOST_AUTO_TEST_CASE(every_rank_leaves_procs_dead_as_its_last_will) {
  ftb::LastWill will = ftb::mpi_bridge::procsDeadWill("j7", 5, "n3", "2", 4242);
  BOOST_CHECK_EQUAL(will.event_name, "FTB_MPI_PROCS_DEAD");
  BOOST_CHECK(will.severity == ftb::Severity::kFatal);
  BOOST_CHECK_EQUAL(will.tags.at("job"), "J7");
  BOOST_CHECK_EQUAL(will.tags.at("rank"), "5");
  BOOST_CHECK_EQUAL(will.tags.at("host"), "n3");
  BOOST_CHECK_EQUAL(will.tags.at("node"), "n3");
  BOOST_CHECK_EQUAL(will.tags.at("attempt"), "2");
  BOOST_CHECK_EQUAL(will.tags.at("pid"), "4242");
  BOOST_CHECK_EQUAL(will.payload, "rank 5 died attempt=2 host=n3 job=J7 node=n3 pid=4242 rank=5");
  BOOST_CHECK_EQUAL(ftb::mpi_bridge::procsDeadWill("J", 0, "n1", "", 1).tags.count("attempt"), 0u);
}

BOOST_AUTO_TEST_CASE(a_schedule_is_validated_with_the_rest_of_the_configuration) {
  {
    Env e{{"FTBCKPT_SCHEDULE", "L1:5,L3:20"}};
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK_EQUAL(c->schedule, "L1:5,L3:20");
  }
  {
    Env e{{"FTBCKPT_SCHEDULE", "L1:5,L7:20"}};
    auto c = configFromEnvironment();
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK_MESSAGE(c.status().message().find("L7") != std::string::npos, c.status().message());
  }
  {
    Env e{{"FTBCKPT_SCHEDULE", "L3:20"}, {"FTBCKPT_INTERVAL", "10"}};
    auto c = configFromEnvironment();
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK_MESSAGE(c.status().message().find("FTBCKPT_INTERVAL") != std::string::npos, c.status().message());
  }
  {
    Env e{{"FTBCKPT_SCHEDULE", "auto"}};
    auto c = configFromEnvironment();
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK_MESSAGE(c.status().message().find("FTBCKPT_MTBF") != std::string::npos, c.status().message());
  }
  {
    Env e{{"FTBCKPT_SCHEDULE", "auto"}, {"FTBCKPT_MTBF", "3600"}};
    BOOST_CHECK(configFromEnvironment().ok());
  }
}

BOOST_AUTO_TEST_CASE(the_encoder_is_the_rank_unless_a_node_encoder_is_asked_for) {
  {
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK(!c->node_encoder);
  }
  {
    Env env({{"FTBCKPT_ENCODER", "node"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK(c->node_encoder);
  }
  {
    Env env({{"FTBCKPT_ENCODER", "head"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK(c.status().message().find("FTBCKPT_ENCODER=head") != std::string::npos);
  }
  {
    Env env({{"FTBCKPT_ENCODER", "node"}, {"FTBCKPT_ENCODER_CPUS", "1,4-6"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK((c->encoder_cpus == std::vector<int>{1, 4, 5, 6}));
  }
  for (const char* bad : {"x", "3-1", "1,1", "2-", ",", "-1"}) {
    Env env({{"FTBCKPT_ENCODER_CPUS", bad}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE_MESSAGE(!c.ok(), bad);
    BOOST_CHECK(c.status().message().find("is not a CPU list") != std::string::npos);
  }
  {
    Env env({{"FTBCKPT_ENCODER", "node"}, {"FTBCKPT_ASYNC", "1"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(!c.ok());
    BOOST_CHECK(c.status().message().find("exclude each other") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_fault_injection_names_its_point_rank_and_checkpoint) {
  {
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK(c->fault.point == FaultPoint::kNone);
    BOOST_CHECK(!faultDue(c->fault, FaultPoint::kCheckpoint, 0, 0));
  }
  {
    Env env({{"FTBCKPT_FAULT", "checkpoint:3:1"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK(faultDue(c->fault, FaultPoint::kCheckpoint, 3, 1));
    BOOST_CHECK(!faultDue(c->fault, FaultPoint::kCheckpoint, 3, 0));
    BOOST_CHECK(!faultDue(c->fault, FaultPoint::kCheckpoint, 2, 1));
    BOOST_CHECK(!faultDue(c->fault, FaultPoint::kRestore, 3));
  }
  {
    Env env({{"FTBCKPT_FAULT", "replay:3"}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE(c.ok());
    BOOST_CHECK(faultDue(c->fault, FaultPoint::kReplay, 3));
    BOOST_CHECK(!faultDue(c->fault, FaultPoint::kRestore, 3));
  }
  for (const char* bad : {"checkpoint:3", "restore", "restore:x", "restore:1:2", "checkpoint:-1:0", "replay", "die:1"}) {
    Env env({{"FTBCKPT_FAULT", bad}});
    auto c = configFromEnvironment();
    BOOST_REQUIRE_MESSAGE(!c.ok(), bad);
    BOOST_CHECK(c.status().message().find(std::string("FTBCKPT_FAULT=") + bad) != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_fault_injected_once_is_due_only_for_the_process_that_claims_it) {
  char dir[] = "/tmp/ftb-fault-XXXXXX";
  BOOST_REQUIRE(mkdtemp(dir) != nullptr);
  const std::string mark = std::string(dir) + "/fired";
  auto fault = parseFaultInjection("restore:2", mark);
  BOOST_REQUIRE(fault.ok());
  BOOST_CHECK(!faultDue(*fault, FaultPoint::kRestore, 1));  // another rank claims nothing
  BOOST_CHECK(faultDue(*fault, FaultPoint::kRestore, 2));
  BOOST_CHECK(!faultDue(*fault, FaultPoint::kRestore, 2));  // its replacement runs on
  std::remove(mark.c_str());
  rmdir(dir);
}
