// MessageLog: what local rollback keeps of one rank's traffic (message_log.h).
#define BOOST_TEST_MODULE message_log_test
#include "components/mpi_bridge/message_log.h"

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <string>

using ftb::mpi_bridge::Channel;
using ftb::mpi_bridge::Determinant;
using ftb::mpi_bridge::MessageLog;

namespace {

void send(MessageLog& log, Channel channel, const std::string& text) {
  std::byte* room = log.appendSent(channel, text.size());
  if (room) std::memcpy(room, text.data(), text.size());
}

std::string text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_peer_gets_what_it_did_not_receive_of_a_channel_in_order) {
  MessageLog log(1 << 20);
  send(log, {1, 7}, "a");
  send(log, {1, 8}, "other tag");
  send(log, {1, 7}, "b");
  send(log, {2, 7}, "other peer");
  send(log, {1, 7}, "c");
  auto rest = log.sentAfter({1, 7}, 1);
  BOOST_TEST_REQUIRE(rest.size() == 2u);
  BOOST_TEST(text(rest[0]) == "b");
  BOOST_TEST(text(rest[1]) == "c");
  BOOST_TEST(log.sentAfter({1, 7}, 3).empty());
  BOOST_TEST(log.sentCount({1, 7}) == 3u);
  BOOST_TEST(log.sentTo(1) == 4u);
  BOOST_TEST(log.sentTo(2) == 1u);
  BOOST_TEST(log.sentTo(3) == 0u);
}

BOOST_AUTO_TEST_CASE(receives_are_counted_per_channel_and_per_peer) {
  MessageLog log(1 << 20);
  log.received({0, 1});
  log.received({0, 1});
  log.received({0, -5});
  log.received({3, 1});
  BOOST_TEST(log.receivedCount({0, 1}) == 2u);
  BOOST_TEST(log.receivedFrom(0) == 3u);
  BOOST_TEST(log.receivedFrom(3) == 1u);
  BOOST_TEST(log.receivedFrom(2) == 0u);
}

BOOST_AUTO_TEST_CASE(a_new_epoch_forgets_everything_and_reuses_its_memory) {
  MessageLog log(1 << 20);
  send(log, {1, 0}, std::string(1000, 'x'));
  log.received({1, 0});
  log.record({Determinant::Kind::kMatch, {1, 0}, {}});
  log.appendCollective(8);
  const std::byte* first = log.sentAfter({1, 0}, 0).at(0).data();
  log.startEpoch(4);
  BOOST_TEST(log.line() == 4u);
  BOOST_TEST(log.sentCount({1, 0}) == 0u);
  BOOST_TEST(log.receivedFrom(1) == 0u);
  BOOST_TEST(log.determinants().empty());
  BOOST_TEST(log.collectives() == 0u);
  BOOST_TEST(log.bytes() == 0u);
  BOOST_TEST(log.peakBytes() == 1008u + sizeof(Determinant));  // the payloads and the determinant
  send(log, {2, 0}, "y");
  BOOST_TEST(log.sentAfter({2, 0}, 0).at(0).data() == first);
}

BOOST_AUTO_TEST_CASE(past_its_bound_the_log_is_spoiled_says_why_and_still_counts) {
  MessageLog log(100);
  send(log, {1, 0}, std::string(60, 'x'));
  BOOST_TEST(log.replayable());
  BOOST_TEST(log.appendSent({1, 0}, 50) == nullptr);
  BOOST_TEST(!log.replayable());
  BOOST_TEST(log.whyNotReplayable().find("outgrew its bound") != std::string::npos);
  BOOST_TEST(log.sentAfter({1, 0}, 0).empty());
  BOOST_TEST(log.appendSent({1, 0}, 1) == nullptr);
  BOOST_TEST(log.sentCount({1, 0}) == 3u);
  BOOST_TEST(log.appendCollective(1) == nullptr);
  BOOST_TEST(log.collectives() == 1u);
  log.startEpoch(1);
  BOOST_TEST(log.replayable());
}

BOOST_AUTO_TEST_CASE(the_first_reason_to_spoil_an_epoch_is_kept) {
  MessageLog log(1 << 20);
  log.spoil("MPI_Reduce on the logged communicator");
  log.spoil("another");
  BOOST_TEST(log.whyNotReplayable() == "MPI_Reduce on the logged communicator");
}

BOOST_AUTO_TEST_CASE(collective_results_and_determinants_are_kept_in_order) {
  MessageLog log(1 << 20);
  std::memcpy(log.appendCollective(2), "r0", 2);
  log.appendCollective(0);  // a barrier
  std::memcpy(log.appendCollective(2), "r2", 2);
  log.record({Determinant::Kind::kMatch, {3, 9}, {}});
  log.record({Determinant::Kind::kCompletion, {}, {0, 2}});
  BOOST_TEST(log.collectives() == 3u);
  BOOST_TEST(text(log.collectiveResult(0)) == "r0");
  BOOST_TEST(log.collectiveResult(1).empty());
  BOOST_TEST(text(log.collectiveResult(2)) == "r2");
  BOOST_TEST_REQUIRE(log.determinants().size() == 2u);
  BOOST_TEST(log.determinants()[0].channel.peer == 3);
  BOOST_TEST((log.determinants()[1].indices == std::vector<int>{0, 2}));
}

BOOST_AUTO_TEST_CASE(a_message_larger_than_a_chunk_is_stored_whole) {
  MessageLog log(8u << 20);
  send(log, {1, 0}, std::string(3u << 20, 'z'));
  send(log, {1, 0}, "after");
  auto all = log.sentAfter({1, 0}, 0);
  BOOST_TEST_REQUIRE(all.size() == 2u);
  BOOST_TEST(all[0].size() == 3u << 20);
  BOOST_TEST(text(all[1]) == "after");
}

BOOST_AUTO_TEST_CASE(a_rank_that_is_no_keeper_counts_collectives_and_keeps_no_result) {
  MessageLog log(1 << 20);
  log.keepCollectiveResults(false);
  log.startEpoch(0);
  BOOST_TEST(log.appendCollective(8, 24) == nullptr);
  BOOST_TEST(log.collectives() == 1u);
  BOOST_TEST(log.collectiveResult(0).empty());
  BOOST_TEST(log.bytes() == 0u);
  BOOST_TEST(log.collectiveTotals().logged_bytes == 0u);
  BOOST_TEST(log.collectiveTotals().point_to_point_bytes == 24u);
}

BOOST_AUTO_TEST_CASE(collective_totals_run_over_every_epoch) {
  MessageLog log(1 << 20);
  log.startEpoch(0);
  log.appendCollective(8, 24);
  log.startEpoch(1);
  log.appendCollective(8, 24);
  BOOST_TEST(log.collectives() == 1u);  // this epoch's
  BOOST_TEST(log.collectiveTotals().calls == 2u);
  BOOST_TEST(log.collectiveTotals().logged_bytes == 16u);
  BOOST_TEST(log.collectiveTotals().point_to_point_bytes == 48u);
}

BOOST_AUTO_TEST_CASE(every_rank_keeps_its_own_gather_contributions_by_root) {
  MessageLog log(1 << 20);
  log.keepCollectiveResults(false);  // contributions are kept by non-keepers too
  log.startEpoch(0);
  log.appendCollective(8, 24);                                    // collective 0
  std::memcpy(log.appendGatherContribution(2, 2, 2), "g1", 2);  // 1, at root 2
  std::memcpy(log.appendGatherContribution(3, 2, 2), "h1", 2);  // 2, at root 3
  std::memcpy(log.appendGatherContribution(2, 2, 2), "g2", 2);  // 3, at root 2
  BOOST_TEST(log.collectives() == 4u);
  auto to_two = log.gathersTo(2);
  BOOST_REQUIRE(to_two.size() == 2u);
  BOOST_TEST(to_two[0].collective == 1u);
  BOOST_TEST(text(to_two[0].bytes) == "g1");
  BOOST_TEST(to_two[1].collective == 3u);
  BOOST_TEST(text(to_two[1].bytes) == "g2");
  BOOST_TEST(log.gathersTo(0).empty());
  BOOST_TEST(log.collectiveTotals().logged_bytes == 6u);
  log.startEpoch(1);
  BOOST_TEST(log.gathersTo(2).empty());
}
