#define BOOST_TEST_MODULE launcher_policy
#include <boost/test/unit_test.hpp>

#include "components/launcher_bridge/policy.h"

using namespace ftb::launcher;

namespace {

ftb::Event ipmi(const std::string& name, const std::string& node) {
  ftb::Event e;
  e.event_space = "FTB.IPMI.MONITOR";
  e.event_name = name;
  e.severity = ftb::Severity::kWarning;
  e.payload = node + " node=" + node + " sensor=FAN1";
  return e;
}

ftb::Event procsDead(const std::string& host) {
  ftb::Event e;
  e.event_space = "FTB.MPI.FTBCKPT";
  e.event_name = "FTB_MPI_PROCS_DEAD";
  e.severity = ftb::Severity::kFatal;
  e.tags = {{"host", host}, {"rank", "4"}};
  e.payload = "rank 4 died host=" + host;
  return e;
}

// What an agent publishes when a tree link to `peer`'s agent dies.
ftb::Event agentLost(const std::string& event_name, const std::string& peer) {
  ftb::Event e;
  e.event_space = "FTB.AGENT";
  e.event_name = event_name;
  e.severity = ftb::Severity::kWarning;
  e.payload = "agent=head address=tcp://10.0.0.1:10809 peer=" + peer + "@tcp://10.0.0.13:10809";
  return e;
}

// What the tree's announcer publishes for a lost node (agent/tree_bridge/node_lost_event.h).
ftb::Event nodeLost(const std::string& node) {
  ftb::Event e;
  e.event_space = "FTB.AGENT";
  e.event_name = "FTB_NODE_LOST";
  e.severity = ftb::Severity::kError;
  e.tags = {{"node", node},
            {"by", "silence"},
            {"jobs", "JOB7"},
            {"job_ranks", "JOB7:4,5"},
            {"corr", "node-" + node + "-17"}};
  e.payload = node + " by=silence corr=node-" + node + "-17";
  return e;
}

struct Fixture {
  explicit Fixture(std::vector<std::string> spares = {"n4"})
      : table(*NodeTable::create({"n1", "n2", "n3"}, spares, 2)),
        policy(*parseRules(kDefaultRules), table, "JOB7") {}
  NodeTable table;
  Policy policy;
};

}  // namespace

BOOST_AUTO_TEST_CASE(node_of_reads_tags_then_the_payload_word) {
  BOOST_TEST(Policy::nodeOf(ipmi("FTB_IPMI_FANFAIL", "n2")) == "n2");
  BOOST_TEST(Policy::nodeOf(procsDead("n3")) == "n3");
  ftb::Event e;
  e.payload = "key=value only";
  BOOST_TEST(Policy::nodeOf(e) == "");
}

BOOST_AUTO_TEST_CASE(fan_failure_moves_the_ranks_to_the_spare) {
  Fixture f;
  auto d = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n2"));
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kMigrate));
  BOOST_TEST(d->node == "n2");
  BOOST_TEST(d->target == "n4");
  BOOST_TEST((d->ranks == std::vector<int>{2, 3}));
  BOOST_TEST(d->corr == "JOB7-1");
  BOOST_TEST(d->rule_text.find("FTB_IPMI_FANFAIL") != std::string::npos);
  BOOST_TEST(f.table.hostList() == "n1:2,n4:2,n3:2");
  BOOST_TEST((f.table.find("n2")->state == NodeState::kInactive));

  // The same warning again: n2 has no ranks any more, nothing to do, and it says why.
  auto again = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n2"));
  BOOST_TEST_REQUIRE(again.has_value());
  BOOST_TEST((again->action == Action::kIgnore));
  BOOST_TEST(!again->skipped.empty());

  // Healthy again: n2 becomes the spare; a second failure then uses it.
  auto normal = f.policy.decide(ipmi("FTB_IPMI_NORMAL", "n2"));
  BOOST_TEST_REQUIRE(normal.has_value());
  BOOST_TEST((normal->action == Action::kSpare));
  auto second = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n1"));
  BOOST_TEST((second->action == Action::kMigrate));
  BOOST_TEST(second->target == "n2");
  BOOST_TEST(second->corr == "JOB7-3");
}

BOOST_AUTO_TEST_CASE(no_spare_left_means_no_migration_and_a_reason) {
  Fixture f(std::vector<std::string>{});
  auto d = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n2"));
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kIgnore));
  BOOST_TEST_REQUIRE(d->skipped.size() == 1u);
  BOOST_TEST(d->skipped[0].find("no spare") != std::string::npos);
  BOOST_TEST(f.table.hostList() == "n1:2,n2:2,n3:2");
}

BOOST_AUTO_TEST_CASE(a_failing_spare_stops_being_a_target) {
  Fixture f;
  auto d = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n4"));
  BOOST_TEST((d->action == Action::kDrain));
  BOOST_TEST((f.table.find("n4")->state == NodeState::kInactive));
  auto m = f.policy.decide(ipmi("FTB_IPMI_FANFAIL", "n1"));
  BOOST_TEST((m->action == Action::kIgnore));
}

BOOST_AUTO_TEST_CASE(events_of_other_kinds_match_no_rule) {
  Fixture f;
  ftb::Event e = ipmi("FTB_IPMI_ECC_CORRECTABLE", "n2");
  BOOST_TEST(!f.policy.decide(e).has_value());
}

BOOST_AUTO_TEST_CASE(overtemperature_on_most_nodes_checkpoints_the_job_once) {
  Fixture f(std::vector<std::string>{});  // no spare: single over-temperatures cannot migrate
  auto first = f.policy.decide(ipmi("FTB_IPMI_OVERTEMP", "n1"));
  BOOST_TEST((first->action == Action::kIgnore));  // 1 of 3, and no spare
  BOOST_TEST(first->skipped.size() == 2u);
  auto second = f.policy.decide(ipmi("FTB_IPMI_OVERTEMP", "n2"));
  BOOST_TEST((second->action == Action::kCheckpoint));  // 2 of 3 > 0.5
  BOOST_TEST(second->node == "n2");
  auto third = f.policy.decide(ipmi("FTB_IPMI_OVERTEMP", "n3"));
  BOOST_TEST((third->action == Action::kIgnore));  // already taken for this episode
  // The room cools down, then heats up again: a new checkpoint.
  for (const char* n : {"n1", "n2", "n3"}) (void)f.policy.decide(ipmi("FTB_IPMI_NORMAL", n));
  (void)f.policy.decide(ipmi("FTB_IPMI_OVERTEMP", "n1"));
  auto again = f.policy.decide(ipmi("FTB_IPMI_OVERTEMP", "n3"));
  BOOST_TEST((again->action == Action::kCheckpoint));
}

BOOST_AUTO_TEST_CASE(a_dead_rank_restarts_the_job_in_place) {
  // The launcher passes a rank's death on only when every job node's agent
  // reported (death_window.h): the nodes live, nothing moves.
  Fixture f;
  auto d = f.policy.decide(procsDead("n3"));
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kRestart));
  BOOST_TEST(d->target == "n3");
  BOOST_TEST((d->ranks == std::vector<int>{4, 5}));
  BOOST_TEST(f.table.hostList() == "n1:2,n2:2,n3:2");
  BOOST_TEST(!d->corr.empty());
}

ftb::Event rankHung(const std::string& host, const std::string& rank) {
  ftb::Event e;
  e.event_space = "FTB.MPI.FTBCKPT";
  e.event_name = "FTB_MPI_RANK_HUNG";
  e.severity = ftb::Severity::kError;
  e.tags = {{"host", host}, {"node", host}, {"rank", rank}, {"pid", "4242"}, {"where", "application"}};
  return e;
}

BOOST_AUTO_TEST_CASE(a_hung_rank_is_replaced_alone) {
  Fixture f;
  auto d = f.policy.decide(rankHung("n3", "5"));
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kReplace));
  BOOST_TEST((d->ranks == std::vector<int>{5}));
  BOOST_TEST(d->pid == 4242);
  BOOST_TEST(d->target == "n3");
  BOOST_TEST(f.table.hostList() == "n1:2,n2:2,n3:2");  // nothing moves: its death decides that
}

BOOST_AUTO_TEST_CASE(a_hung_rank_that_the_table_does_not_hold_there_is_not_replaced) {
  Fixture f;
  for (const auto& [host, rank] : {std::pair{"n3", "1"}, {"n9", "5"}, {"n3", "x"}, {"n3", "-1"}}) {
    auto d = f.policy.decide(rankHung(host, rank));
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST((d->action == Action::kIgnore), host << " rank " << rank);
    BOOST_TEST(!d->skipped.empty());
  }
}

BOOST_AUTO_TEST_CASE(without_a_spare_a_dead_node_merges_into_its_neighbour) {
  Fixture f(std::vector<std::string>{});
  const ftb::Event lost = nodeLost("n3");
  auto d = f.policy.decide(lost);
  BOOST_TEST((d->action == Action::kRelaunch));
  BOOST_TEST(d->target == "n2");
  BOOST_TEST(f.table.hostList() == "n1:2,n2:4");
  // The same loss again (another announcer, the same corr): n3 runs no ranks any more.
  auto dup = f.policy.decide(lost);
  BOOST_TEST((dup->action == Action::kIgnore));
}

BOOST_AUTO_TEST_CASE(a_lost_node_relaunches_its_ranks_under_the_losss_correlation_id) {
  Fixture f;
  const ftb::Event e = nodeLost("n3");
  BOOST_TEST(Policy::nodeOf(e) == "n3");
  auto d = f.policy.decide(e);
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kRelaunch));
  BOOST_TEST(d->target == "n4");
  BOOST_TEST(d->corr == "node-n3-17");
}

// The tree's per-link reports of the same loss decide nothing by default: the
// one FTB_NODE_LOST does (a rule may still name them).
BOOST_AUTO_TEST_CASE(a_lost_link_alone_moves_nothing_by_default) {
  Fixture f;
  for (const char* name : {"FTB_AGENT_CHILD_LOST", "FTB_AGENT_PARENT_LOST"}) {
    const ftb::Event e = agentLost(name, "n3");
    BOOST_TEST(Policy::nodeOf(e) == "n3");
    auto d = f.policy.decide(e);
    BOOST_TEST((!d || d->action == Action::kIgnore), name);
  }
  BOOST_TEST(f.table.hostList() == "n1:2,n2:2,n3:2");
}

BOOST_AUTO_TEST_CASE(a_request_carries_its_own_correlation_id) {
  Fixture f;
  ftb::Event e;
  e.event_space = "FTB.JL.JOB7";
  e.event_name = "FTB_CHECKPOINT_REQUEST";
  e.tags = {{"corr", "op-42"}};
  auto d = f.policy.decide(e);
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kCheckpoint));
  BOOST_TEST(d->corr == "op-42");
}

BOOST_AUTO_TEST_CASE(a_lost_spare_stops_being_a_target) {
  Fixture f;
  auto d = f.policy.decide(nodeLost("n4"));
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kDrain));
  BOOST_TEST((f.table.find("n4")->state == NodeState::kInactive));
  // The next lost node has no spare to go to: its ranks join a neighbour's.
  auto next = f.policy.decide(nodeLost("n3"));
  BOOST_TEST((next->action == Action::kRelaunch));
  BOOST_TEST(next->target == "n2");
}

BOOST_AUTO_TEST_CASE(a_drained_node_is_suspect_while_its_ranks_run_on_until_it_is_healthy_or_migrated) {
  NodeTable table = *NodeTable::create({"n1", "n2", "n3"}, {"n4"}, 2);
  Policy policy(*parseRules("event_space=FTB.IB.*, event_name=FTB_IB_PORT_DEGRADED -> drain\n" +
                            std::string(kDefaultRules)),
                table, "JOB7");
  ftb::Event degraded;
  degraded.event_space = "FTB.IB.MONITOR";
  degraded.event_name = "FTB_IB_PORT_DEGRADED";
  degraded.tags = {{"host", "n2"}};
  auto d = policy.decide(degraded);
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST((d->action == Action::kDrain));
  BOOST_TEST((table.find("n2")->state == NodeState::kInactive));  // told as MIGRATION_INACTIVE: suspect
  BOOST_TEST(table.find("n2")->ranks == (std::vector<int>{2, 3}));  // running on
  BOOST_TEST(table.hostList() == "n1:2,n2:2,n3:2");

  // Healthy again: READY, its ranks never moved.
  auto normal = policy.decide(ipmi("FTB_IPMI_NORMAL", "n2"));
  BOOST_TEST_REQUIRE(normal.has_value());
  BOOST_TEST((normal->action == Action::kResume));
  BOOST_TEST((table.find("n2")->state == NodeState::kReady));

  // Drained again, then failing: its ranks migrate to the spare.
  BOOST_TEST_REQUIRE(policy.decide(degraded).has_value());
  auto m = policy.decide(ipmi("FTB_IPMI_FANFAIL", "n2"));
  BOOST_TEST_REQUIRE(m.has_value());
  BOOST_TEST((m->action == Action::kMigrate));
  BOOST_TEST(m->target == "n4");
  BOOST_TEST(table.hostList() == "n1:2,n4:2,n3:2");
}
