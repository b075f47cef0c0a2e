// The admission table on its own: which kind of peer may send which message,
// the one subscribe check, and who may resume a session's origin.
#define BOOST_TEST_MODULE admission_test
#include "agent/security/admission.h"

#include <set>

#include <boost/test/unit_test.hpp>

using ftb::Code;
using ftb::agent::Admission;
using ftb::agent::Check;
using ftb::agent::NamespacePolicy;
using ftb::agent::OriginOwner;
using ftb::agent::PeerCredentials;
using ftb::agent::Sender;
using B = ftb::proto::Envelope;

namespace {

const std::string kAgentsKey = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
const std::string kClientKey = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID";

Sender local(uint32_t uid, bool session = false) {
  return {.local = PeerCredentials{uid, uid, 100}, .has_session = session};
}
Sender remote(std::string address, bool session = false) {
  return {.address = std::move(address), .has_session = session};
}
Sender curve(std::string key, bool session = false) {
  return {.address = "10.0.0.9", .curve_key = std::move(key), .has_session = session};
}

NamespacePolicy policy(const std::string& text) {
  auto p = NamespacePolicy::parse(text, "test");
  BOOST_REQUIRE(p.ok());
  return std::move(p).value();
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_served_message_has_one_row) {
  std::set<int> types;
  for (const auto& row : Admission::table()) {
    BOOST_TEST(types.insert(row.type).second, "two rows for " << row.name);
    BOOST_TEST(row.senders != 0, row.name << " admits nobody");
  }
  for (B::BodyCase t : {B::kHello, B::kDeclare, B::kPublish, B::kSubscribe, B::kUnsubscribe,
                        B::kHeartbeat, B::kGoodbye, B::kStatusRequest, B::kClientsRequest,
                        B::kHistoryQuery, B::kTreeQuery, B::kTree}) {
    BOOST_TEST(Admission::rule(t) != nullptr, "no row for body " << t);
  }
  // The history query answers to the same check as subscribing.
  BOOST_TEST((Admission::rule(B::kHistoryQuery)->check == Check::kSubscribePolicy));
  BOOST_TEST((Admission::rule(B::kSubscribe)->check == Check::kSubscribePolicy));
  BOOST_TEST((Admission::rule(B::kHello)->check == Check::kOriginOwner));
}

BOOST_AUTO_TEST_CASE(types_the_agent_does_not_serve_are_not_found) {
  const auto p = NamespacePolicy::embeddedDefault();
  Admission a(p);
  for (B::BodyCase t : {B::kHelloReply, B::kDeliver, B::kPublishAck, B::kError, B::BODY_NOT_SET}) {
    BOOST_TEST(Admission::rule(t) == nullptr);
    BOOST_TEST((a.admit(t, local(0, true)).code() == Code::kNotFound));
  }
}

BOOST_AUTO_TEST_CASE(without_a_cluster_key_no_peer_is_an_agent) {
  const auto p = NamespacePolicy::embeddedDefault();
  Admission fresh(p);  // a fresh install: no Curve key, no lab setting
  const auto refused = fresh.admit(B::kTree, remote("127.0.0.1"));
  BOOST_TEST((refused.code() == Code::kPermissionDenied));
  BOOST_TEST(refused.message().find("no cluster key (curve-key-file), so it admits no agent") != std::string::npos,
             refused.message());
  BOOST_TEST(fresh.kindsOf(remote("127.0.0.1")) == ftb::agent::kRemoteClient);
  // Clients are served as before.
  BOOST_TEST(fresh.admit(B::kHello, remote("127.0.0.1")).ok());
  // The lab setting cannot open a tree that Curve guards.
  Admission secured(p);
  secured.setAgentsCurveKey(kAgentsKey);
  secured.admitAnyTreePeer();
  BOOST_TEST((secured.admit(B::kTree, remote("127.0.0.1")).code() == Code::kPermissionDenied));
}

BOOST_AUTO_TEST_CASE(tree_messages_come_from_agent_links_only) {
  const auto p = NamespacePolicy::embeddedDefault();
  Admission open(p);  // tree-authentication = insecure-none: any TCP peer may be an agent
  open.admitAnyTreePeer();
  BOOST_TEST(open.admit(B::kTree, remote("10.0.0.7")).ok());
  // Never from the IPC socket, whoever runs it.
  const auto from_ipc = open.admit(B::kTree, local(0));
  BOOST_TEST((from_ipc.code() == Code::kPermissionDenied));
  BOOST_TEST(from_ipc.message().find("Tree is accepted only from other agents, not from a local client (uid 0)") !=
                 std::string::npos,
             from_ipc.message());
  // Never from a connection that holds a client session.
  const auto from_client = open.admit(B::kTree, remote("10.0.0.7", true));
  BOOST_TEST((from_client.code() == Code::kPermissionDenied));
  BOOST_TEST(from_client.message().find("holding a client session") != std::string::npos);

  Admission secured(p);  // Curve on: agents link with the cluster key
  secured.setAgentsCurveKey(kAgentsKey);
  BOOST_TEST(secured.admit(B::kTree, curve(kAgentsKey)).ok());
  BOOST_TEST((secured.admit(B::kTree, curve(kClientKey)).code() == Code::kPermissionDenied));
  BOOST_TEST((secured.admit(B::kTree, local(0)).code() == Code::kPermissionDenied));
  BOOST_TEST((secured.admit(B::kTree, curve(kAgentsKey, true)).code() == Code::kPermissionDenied));
}

BOOST_AUTO_TEST_CASE(session_messages_need_hello_first) {
  const auto p = NamespacePolicy::embeddedDefault();
  Admission a(p);
  for (B::BodyCase t : {B::kDeclare, B::kPublish, B::kSubscribe, B::kUnsubscribe, B::kHeartbeat}) {
    const auto without = a.admit(t, local(1000));
    BOOST_TEST((without.code() == Code::kUnauthenticated));
    BOOST_TEST(without.message().find("send Hello first") != std::string::npos);
    BOOST_TEST(a.admit(t, local(1000, true)).ok());
    BOOST_TEST(a.admit(t, remote("10.0.0.7", true)).ok());
  }
  // Hello, Goodbye and the control API need no session, from any client.
  for (B::BodyCase t : {B::kHello, B::kGoodbye, B::kStatusRequest, B::kClientsRequest,
                        B::kHistoryQuery, B::kTreeQuery}) {
    BOOST_TEST(a.admit(t, local(65534)).ok());
    BOOST_TEST(a.admit(t, remote("10.0.0.7")).ok());
    BOOST_TEST(a.admit(t, curve(kClientKey)).ok());
  }
}

BOOST_AUTO_TEST_CASE(peer_kinds) {
  const auto p = NamespacePolicy::embeddedDefault();
  Admission a(p);
  a.setAgentsCurveKey(kAgentsKey);
  using namespace ftb::agent;
  BOOST_TEST(a.kindsOf(local(0)) == kLocalClient);
  BOOST_TEST(a.kindsOf(curve(kClientKey)) == kCurveClient);
  BOOST_TEST(a.kindsOf(curve(kAgentsKey)) == (kCurveClient | kAgentLink));
  BOOST_TEST(a.kindsOf(curve(kAgentsKey, true)) == kCurveClient);
  Admission open(p);
  open.admitAnyTreePeer();
  BOOST_TEST(open.kindsOf(remote("10.0.0.7")) == (kRemoteClient | kAgentLink));
  // Principals for the namespace policy come from the same facts.
  BOOST_TEST(a.principalOf(curve(kClientKey)).curve_authenticated);
  BOOST_TEST(!a.principalOf(remote("10.0.0.7")).curve_authenticated);
  BOOST_TEST(a.principalOf(local(7)).peer->uid == 7u);
}

BOOST_AUTO_TEST_CASE(one_subscribe_check_for_every_path) {
  const auto p = policy("publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n");
  Admission a(p);
  BOOST_TEST(!a.everyoneSeesEverything());
  BOOST_TEST(a.maySee(a.principalOf(local(0)), "FTB.SECRET.KEYS"));
  BOOST_TEST(!a.maySee(a.principalOf(local(65534)), "FTB.SECRET.KEYS"));
  BOOST_TEST(!a.maySee(a.principalOf(remote("10.0.0.7")), "FTB.SECRET.KEYS"));
  BOOST_TEST(a.maySee(a.principalOf(local(65534)), "FTB.OPEN.A"));
  const auto open = NamespacePolicy::embeddedDefault();
  BOOST_TEST(Admission(open).everyoneSeesEverything());
}

BOOST_AUTO_TEST_CASE(only_the_owner_resumes_an_origin) {
  // Local: the same kernel-verified uid, nothing else.
  const OriginOwner root = OriginOwner::of(local(0));
  BOOST_TEST(root.describe() == "uid 0");
  BOOST_TEST(Admission::mayResume(root, local(0)).ok());
  const auto impostor = Admission::mayResume(root, local(65534));
  BOOST_TEST((impostor.code() == Code::kPermissionDenied));
  BOOST_TEST(impostor.message().find("Hello refused") != std::string::npos, impostor.message());
  BOOST_TEST(impostor.message().find("a local client (uid 65534) is not its owner") != std::string::npos);
  BOOST_TEST(!Admission::mayResume(root, remote("127.0.0.1")).ok());  // a local session stays local
  BOOST_TEST(!Admission::mayResume(root, curve(kClientKey)).ok());

  // Remote with Curve: the same key.
  const OriginOwner keyed = OriginOwner::of(curve(kClientKey));
  BOOST_TEST(Admission::mayResume(keyed, curve(kClientKey)).ok());
  BOOST_TEST(!Admission::mayResume(keyed, curve(kAgentsKey)).ok());
  BOOST_TEST(!Admission::mayResume(keyed, local(0)).ok());

  // Remote without Curve: nothing verified but the address; the same one.
  const OriginOwner anon = OriginOwner::of(remote("10.0.0.7"));
  BOOST_TEST(Admission::mayResume(anon, remote("10.0.0.7")).ok());
  BOOST_TEST(!Admission::mayResume(anon, remote("10.0.0.8")).ok());
  BOOST_TEST(!Admission::mayResume(anon, local(0)).ok());
}
