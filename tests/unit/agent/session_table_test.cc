#define BOOST_TEST_MODULE session_table
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <string>

#include "agent/sessions/session_table.h"
#include "client/clock.h"

using ftb::agent::ClientSession;
using ftb::ManualClock;
using ftb::agent::PeerCredentials;
using ftb::agent::Sender;
using ftb::agent::SessionTable;
using namespace std::chrono_literals;

namespace {

Sender local(uint32_t uid) {
  Sender s;
  s.local = PeerCredentials{.uid = uid, .gid = uid, .pid = 4242};
  return s;
}

Sender remote(const std::string& address) {
  Sender s;
  s.address = address;
  return s;
}

std::unique_ptr<ClientSession> session(const std::string& routing_id, const std::string& key) {
  auto s = std::make_unique<ClientSession>(16);
  s->routing_id = routing_id;
  s->publisher_key = key;
  s->client_name = "client-" + routing_id;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sessions_are_found_by_routing_id_and_publisher_key) {
  ManualClock clock;
  SessionTable table(clock);
  ClientSession& a = table.add(session("r1", "k1"), local(1000));
  ClientSession& b = table.add(session("r2", "k2"), local(1000));
  BOOST_TEST(table.size() == 2u);
  BOOST_TEST(table.find("r1") == &a);
  BOOST_TEST(table.byPublisher("k2") == &b);
  BOOST_TEST(table.contains("r2"));
  BOOST_TEST(table.find("r3") == nullptr);
  BOOST_TEST(table.byPublisher("k3") == nullptr);
  BOOST_TEST(a.session != b.session);  // numbered in the order they said Hello
  BOOST_TEST(b.session == a.session + 1);
  BOOST_TEST((a.last_seen == clock.steadyNow()));
  BOOST_TEST((a.connected_at == clock.systemNow()));
  std::size_t seen = 0;
  for (const auto& [id, s] : table) seen += (s->routing_id == id) ? 1 : 0;
  BOOST_TEST(seen == 2u);
}

BOOST_AUTO_TEST_CASE(a_returning_publisher_resumes_after_its_accepted_sequence) {
  ManualClock clock;
  SessionTable table(clock);
  ClientSession& first = table.add(session("r1", "k1"), local(1000));
  BOOST_TEST(first.last_seq == 0u);
  table.recordAccepted(first, 5);
  table.recordAccepted(first, 7);
  BOOST_TEST(first.last_seq == 7u);
  BOOST_TEST(first.ack_due);
  BOOST_TEST(first.unacked_events == 2u);
  BOOST_TEST(table.acceptedSeq("k1") == 7u);

  std::unique_ptr<ClientSession> gone = table.remove("r1");
  BOOST_TEST_REQUIRE(gone != nullptr);
  BOOST_TEST(table.find("r1") == nullptr);
  BOOST_TEST(table.byPublisher("k1") == nullptr);
  BOOST_TEST(table.acceptedSeq("k1") == 7u);  // kept for the reconnect
  BOOST_TEST(table.remove("r1") == nullptr);

  // Reconnected on a new socket: told where to resume.
  ClientSession& again = table.add(session("r9", "k1"), local(1000));
  BOOST_TEST(again.last_seq == 7u);
  BOOST_TEST(!again.ack_due);
}

BOOST_AUTO_TEST_CASE(only_the_owner_of_an_origin_may_claim_it) {
  ManualClock clock;
  SessionTable table(clock);
  BOOST_TEST(table.mayClaim("k1", local(65534)).ok());  // unknown key: anyone
  BOOST_TEST(table.ownerOf("k1") == nullptr);
  table.add(session("r1", "k1"), local(0));
  BOOST_TEST(table.mayClaim("k1", local(0)).ok());
  const auto refused = table.mayClaim("k1", local(65534));
  BOOST_TEST(!refused.ok());
  BOOST_TEST((refused.code() == ftb::Code::kPermissionDenied));
  BOOST_TEST(!table.mayClaim("k1", remote("10.0.0.7")).ok());
  BOOST_TEST_REQUIRE(table.ownerOf("k1") != nullptr);
  BOOST_TEST(table.ownerOf("k1")->describe() == "uid 0");

  // Still refused once the owner has left, while the key is remembered.
  table.remove("r1");
  BOOST_TEST(!table.mayClaim("k1", local(65534)).ok());
  BOOST_TEST(table.mayClaim("k1", local(0)).ok());

  // A remote owner without Curve is known by its address.
  table.add(session("r2", "k2"), remote("10.0.0.7"));
  BOOST_TEST(table.mayClaim("k2", remote("10.0.0.7")).ok());
  BOOST_TEST(!table.mayClaim("k2", remote("10.0.0.8")).ok());
  BOOST_TEST(!table.mayClaim("k2", local(0)).ok());
}

BOOST_AUTO_TEST_CASE(a_stale_session_is_not_unlinked_by_its_successor_leaving_first) {
  ManualClock clock;
  SessionTable table(clock);
  table.add(session("old", "k1"), local(1000));
  // The agent removes the old session before it adds the new one; a stray
  // second session under the key (added without that removal) must not be
  // unlinked from the key by removing the other one.
  table.add(session("new", "k1"), local(1000));
  BOOST_TEST(table.byPublisher("k1") == table.find("new"));
  table.remove("old");
  BOOST_TEST(table.byPublisher("k1") == table.find("new"));
}

BOOST_AUTO_TEST_CASE(silent_sessions_are_named_after_the_timeout) {
  ManualClock clock;
  SessionTable table(clock);
  table.add(session("quiet", "k1"), local(1000));
  ClientSession& busy = table.add(session("busy", "k2"), local(1000));
  clock.advance(2s);
  busy.last_seen = clock.steadyNow();
  BOOST_TEST(table.silentFor(3s).empty());
  clock.advance(1500ms);
  const auto silent = table.silentFor(3s);
  BOOST_TEST_REQUIRE(silent.size() == 1u);
  BOOST_TEST(silent[0] == "quiet");
}

BOOST_AUTO_TEST_CASE(departed_publishers_are_forgotten_after_the_keep_time) {
  ManualClock clock;
  SessionTable table(clock);
  ClientSession& s = table.add(session("r1", "k1"), local(0));
  table.recordAccepted(s, 3);
  table.add(session("r2", "k2"), local(0));
  table.remove("r1");
  clock.advance(10s);
  table.forgetDeparted(10s);
  BOOST_TEST(table.acceptedSeq("k1") == 3u);  // not longer than the keep time yet
  clock.advance(1ms);
  table.forgetDeparted(10s);
  BOOST_TEST(table.acceptedSeq("k1") == 0u);
  BOOST_TEST(table.mayClaim("k1", local(65534)).ok());  // forgotten: a fresh origin
  BOOST_TEST(table.knownPublishers() == 1u);           // k2 is connected: kept
}

BOOST_AUTO_TEST_CASE(a_last_will_takes_sequence_one_once) {
  ManualClock clock;
  SessionTable table(clock);
  BOOST_TEST(table.claimWillSequence("will-key"));
  BOOST_TEST(table.acceptedSeq("will-key") == 1u);
  BOOST_TEST(!table.claimWillSequence("will-key"));  // never twice
  ClientSession& s = table.add(session("r1", "k1"), local(0));
  table.recordAccepted(s, 1);
  BOOST_TEST(!table.claimWillSequence("k1"));  // the key published already
}

BOOST_AUTO_TEST_CASE(a_publish_ack_is_due_from_the_first_unacknowledged_event) {
  ManualClock clock;
  SessionTable table(clock);
  ClientSession& s = table.add(session("r1", "k1"), local(0));
  const auto first = clock.steadyNow();
  table.recordAccepted(s, 1);
  clock.advance(1ms);
  table.recordAccepted(s, 2);
  BOOST_TEST((s.ack_due_since == first));
}
