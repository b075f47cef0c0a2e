// planLocalRecovery: what survivors resend, what the replacement skips, and
// every rule that sends all ranks back to global rollback (local_recovery_plan.h).
#define BOOST_TEST_MODULE local_recovery_plan_test
#include "components/mpi_bridge/local_recovery_plan.h"

#include <boost/test/unit_test.hpp>

using ftb::mpi_bridge::Channel;
using ftb::mpi_bridge::LocalRecoveryPlan;
using ftb::mpi_bridge::LogAccount;
using ftb::mpi_bridge::RankReplay;
using ftb::mpi_bridge::planLocalRecovery;

namespace {

// Three ranks in a ring (r sends to r+1 with tag 0), each past checkpoint
// line 4; rank 2 lost. Rank 0 sent rank 1 five messages, rank 1 received
// four (one lost with the old communicator); rank 1 sent rank 2 five; rank 2
// had sent rank 0 three, of which rank 0 received three.
std::vector<LogAccount> ring() {
  std::vector<LogAccount> a(3);
  for (auto& account : a) account.line = 4;
  a[0].sent[{1, 0}] = 5;
  a[0].received[{2, 0}] = 3;
  a[0].collectives = 7;
  a[1].sent[{2, 0}] = 5;
  a[1].received[{0, 0}] = 4;
  a[1].collectives = 6;  // interrupted inside the seventh
  a[2] = ftb::mpi_bridge::restartedAccount();  // the replacement
  return a;
}

bool hasResend(const LocalRecoveryPlan& plan, int from, Channel channel, std::uint64_t skip) {
  for (const auto& r : plan.resends) {
    if (r.from == from && r.channel == channel && r.skip == skip) return true;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(survivors_resend_what_was_not_received_and_the_replacement_skips_what_was) {
  LocalRecoveryPlan plan = planLocalRecovery(ring(), 4);
  BOOST_TEST_INFO(plan.why_global);
  BOOST_REQUIRE(plan.local);
  BOOST_TEST(plan.lost == 2);
  BOOST_TEST(plan.line == 4);
  BOOST_TEST(plan.resends.size() == 2u);
  BOOST_TEST(hasResend(plan, 0, {1, 0}, 4));  // the one message lost between survivors
  BOOST_TEST(hasResend(plan, 1, {2, 0}, 0));  // everything since the line, to the replacement
  BOOST_TEST(plan.replacement_skips.size() == 1u);
  BOOST_TEST(plan.replacement_skips.at({0, 0}) == 3u);
  BOOST_TEST(plan.collectives == 7u);
  BOOST_TEST(plan.collectives_from == 0);
  BOOST_TEST(describe(plan) ==
             "local rollback of rank 2 from checkpoint line 4 (channels to resend 2, its sends to skip 3, "
             "collectives to hand over 7 from rank 0)");
}

BOOST_AUTO_TEST_CASE(each_rank_replays_its_part_of_the_plan) {
  const auto accounts = ring();
  const LocalRecoveryPlan plan = planLocalRecovery(accounts, 4);
  const RankReplay replacement = ftb::mpi_bridge::replayFor(plan, 2);
  BOOST_TEST(replacement.skips.size() == 1u);
  BOOST_TEST(replacement.skips.at({0, 0}) == 3u);  // rank 0 received three of its messages
  const RankReplay survivor = ftb::mpi_bridge::replayFor(plan, 1);
  BOOST_TEST(survivor.skips.empty());
  BOOST_TEST(ftb::mpi_bridge::replayFor(planLocalRecovery(accounts, 3), 2).skips.empty());  // global
}

BOOST_AUTO_TEST_CASE(channels_are_told_apart_by_tag) {
  auto a = ring();
  a[0].sent[{1, 9}] = 2;
  a[1].received[{0, 9}] = 2;
  a[0].received[{2, 5}] = 1;
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_REQUIRE(plan.local);
  BOOST_TEST(plan.resends.size() == 2u);  // tag 9 arrived whole
  BOOST_TEST(plan.replacement_skips.at({0, 5}) == 1u);
  BOOST_TEST(plan.replacement_skips.at({0, 0}) == 3u);
}

BOOST_AUTO_TEST_CASE(nothing_to_do_when_everything_arrived_and_nothing_was_collective) {
  std::vector<LogAccount> a(2);
  a[1].restarted = true;
  LocalRecoveryPlan plan = planLocalRecovery(a, -1);
  BOOST_REQUIRE(plan.local);
  BOOST_TEST(plan.resends.empty());
  BOOST_TEST(plan.replacement_skips.empty());
  BOOST_TEST(plan.collectives_from == -1);
}

BOOST_AUTO_TEST_CASE(two_lost_ranks_fall_back_to_global_rollback) {
  auto a = ring();
  a[1] = ftb::mpi_bridge::restartedAccount();
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global == "2 ranks lost at once (local rollback replays one)");
  BOOST_TEST(describe(plan) == "global rollback: 2 ranks lost at once (local rollback replays one)");
}

BOOST_AUTO_TEST_CASE(a_survivors_log_that_cannot_be_replayed_falls_back_and_says_why) {
  auto a = ring();
  a[1].replayable = false;
  a[1].why_not = "MPI_Reduce on the logged communicator";
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global == "rank 1: MPI_Reduce on the logged communicator");
}

BOOST_AUTO_TEST_CASE(the_lost_ranks_counts_do_not_matter_but_its_determinants_do) {
  auto a = ring();
  a[2].line = 2;  // it restarted: its counts are nothing
  a[2].sent[{0, 0}] = 9;
  BOOST_TEST(planLocalRecovery(a, 4).local);
  a[2].replayable = false;
  a[2].why_not = "its predecessor's determinants are not in this node's memory";
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global == "rank 2: its predecessor's determinants are not in this node's memory");
}

BOOST_AUTO_TEST_CASE(a_failure_during_a_checkpoint_falls_back) {
  auto a = ring();
  a[0].line = 5;  // rank 0 finished checkpoint 5, which not every rank can restore
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global.find("during a checkpoint") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(counts_that_contradict_each_other_fall_back) {
  auto a = ring();
  a[1].received[{0, 0}] = 6;  // more than rank 0 sent
  LocalRecoveryPlan plan = planLocalRecovery(a, 4);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global == "rank 1 received 6 messages with tag 0 from rank 0, which sent 5");
}

BOOST_AUTO_TEST_CASE(an_account_survives_its_record) {
  LogAccount a = ring()[1];
  a.restarted = true;
  a.line = -1;
  a.replayable = false;
  a.why_not = "MPI_Cancel of a request";
  a.received[{-1, -7}] = 2;  // any int survives, negative too
  auto back = ftb::mpi_bridge::decodeAccount(ftb::mpi_bridge::encodeAccount(a));
  BOOST_REQUIRE(back.ok());
  BOOST_TEST(back->restarted);
  BOOST_TEST(back->line == -1);
  BOOST_TEST(!back->replayable);
  BOOST_TEST(back->why_not == a.why_not);
  BOOST_TEST((back->sent == a.sent));
  BOOST_TEST((back->received == a.received));
  BOOST_TEST(back->collectives == 6u);
}

BOOST_AUTO_TEST_CASE(a_cut_record_is_refused) {
  auto record = ftb::mpi_bridge::encodeAccount(ring()[0]);
  record.pop_back();
  BOOST_TEST(!ftb::mpi_bridge::decodeAccount(record).ok());
  record.push_back(0);
  record.push_back(0);
  BOOST_TEST(!ftb::mpi_bridge::decodeAccount(record).ok());
}

BOOST_AUTO_TEST_CASE(a_logs_account_says_what_it_holds) {
  ftb::mpi_bridge::MessageLog log(1 << 20);
  log.startEpoch(3);
  log.appendSent({1, 2}, 4);
  log.received({2, 0});
  log.appendCollective(8);
  LogAccount a = ftb::mpi_bridge::accountOf(log);
  BOOST_TEST(a.line == 3);
  BOOST_TEST(a.replayable);
  BOOST_TEST(a.sent.at({1, 2}) == 1u);
  BOOST_TEST(a.received.at({2, 0}) == 1u);
  BOOST_TEST(a.collectives == 1u);
}

BOOST_AUTO_TEST_CASE(collectives_are_handed_over_by_a_surviving_keeper_of_their_results) {
  // Four ranks, no point-to-point traffic; rank 0 (a keeper) lost.
  std::vector<LogAccount> a(4);
  for (auto& account : a) account.line = 2;
  a[0] = ftb::mpi_bridge::restartedAccount();
  a[1].collectives = 5;
  a[2].collectives = 5;
  a[3].collectives = 5;
  LocalRecoveryPlan plan = planLocalRecovery(a, 2);
  BOOST_TEST_INFO(plan.why_global);
  BOOST_REQUIRE(plan.local);
  BOOST_TEST(plan.collectives == 5u);
  BOOST_TEST(plan.collectives_from == 1);
  // A non-keeper got past the keeper (rank 1 interrupted inside the sixth):
  // nobody holds the sixth result, so every rank rolls back.
  a[3].collectives = 6;
  plan = planLocalRecovery(a, 2);
  BOOST_TEST(!plan.local);
  BOOST_TEST(plan.why_global ==
             "a survivor completed 6 collectives since the line, the surviving keepers of their results 5");
}
