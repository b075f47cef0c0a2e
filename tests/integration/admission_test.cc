// The agent's admission table with a real agent (agent/security/admission.h):
// - a Hello claiming another uid's process as its origin (live, not yet
//   connected, or with the last-will bit) is refused with a precise error, and
//   the real client's session and event ids are untouched;
// - tree messages are accepted from other agents only: never from the IPC
//   socket, nor (Curve on) from a remote client holding its own authorized key,
//   nor over TCP at all from an agent without a cluster key (a fresh install).
#define BOOST_TEST_MODULE admission
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <zmq.hpp>

#include "client/client.h"
#include "client/curve_keys.h"
#include "client/wire/codec.h"
#include "proto/tree.pb.h"
#include "tests/integration/nobody_child.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::NobodyChild;
using ftb::testing::RawIdentity;
using ftb::testing::RawPeer;

namespace {

constexpr char kVictimSpace[] = "FTB.VICTIM.JOB";

std::string errorText(const std::optional<ftb::proto::Envelope>& e) {
  if (!e) return "no answer";
  if (e->has_error()) {
    return ftb::proto::Error::Code_Name(e->error().code()) + ": " + e->error().message();
  }
  if (e->has_hello_reply()) return "hello accepted, accepted_seq=" + std::to_string(e->hello_reply().accepted_seq());
  return "unexpected answer " + e->DebugString();
}

// In the child (uid nobody): for each instance given, say Hello under the
// victim process's origin with that instance, then try to publish 100 events
// under those event ids. Input: endpoint, host, pid, start, then instances.
std::string impersonate(const std::string& input) {
  std::istringstream in(input);
  std::string endpoint;
  RawIdentity who{.client_name = "impostor", .event_space = kVictimSpace};
  in >> endpoint >> who.host >> who.pid >> who.process_start_ns;
  std::string report;
  while (in >> who.client_instance) {
    RawPeer peer(endpoint);
    const std::string claim = "instance " + std::to_string(who.client_instance);
    report += claim + " hello: " +
              errorText(peer.call(ftb::testing::makeHello(who, {{"NOTE", ftb::proto::INFO}}))) + "\n";
    ftb::proto::Envelope publish;
    for (uint64_t seq = 1; seq <= 100; ++seq) {
      publish.mutable_publish()->add_events(
          ftb::testing::makeEventBytes(who, "NOTE", ftb::proto::INFO, 1000 + seq, "forged"));
    }
    peer.send(publish);
    report += claim + " publish: " +
              errorText(peer.recvMatching([](const auto& e) { return e.has_error(); }, 5s)) + "\n";
  }
  return report;
}

// How many times `text` occurs in `report`.
std::size_t occurrences(const std::string& report, const std::string& text) {
  std::size_t n = 0;
  for (auto at = report.find(text); at != std::string::npos; at = report.find(text, at + 1)) ++n;
  return n;
}

ftb::proto::Envelope treeMessage(const std::function<void(ftb::proto::TreeMessage&)>& fill,
                                 const std::string& from = "tcp://127.0.0.1:9") {  // nobody listens there
  ftb::proto::Envelope e;
  auto* m = e.mutable_tree();
  m->mutable_from()->set_address(from);
  m->mutable_from()->set_incarnation(1);
  m->mutable_from()->set_name("forger");
  fill(*m);
  return e;
}

// A child agent's join request, asking for every event.
ftb::proto::Envelope joinRequest() {
  return treeMessage([](auto& m) {
    m.mutable_join_request()->set_attempt(1);
    m.mutable_join_request()->add_interest("*");
  });
}

// A tree batch of one event `name` in `space` under another publisher's name,
// its sender "verified" as root.
ftb::proto::Envelope forgedRootEvent(const std::string& space, std::string_view name, ftb::proto::Severity severity,
                                     const std::string& payload) {
  RawIdentity forged{.event_space = space};
  ftb::proto::Event event;
  BOOST_REQUIRE(event.ParseFromString(ftb::testing::makeEventBytes(forged, name, severity, 1, payload)));
  event.mutable_sender()->set_uid(0);
  event.mutable_sender()->set_credentials_known(true);
  return treeMessage([&](auto& m) {
    auto* item = m.mutable_events()->add_events();
    item->set_publisher("raw-host/4242/1/1");
    item->set_seq(1);
    item->set_event_space(space);
    item->set_event(event.SerializeAsString());
  });
}

}  // namespace

// The claims (a), (b) and (d): a live client's origin with its own
// instance, the next instance (a client the process has not opened yet), and
// the instance with the last-will bit.
BOOST_AUTO_TEST_CASE(another_user_may_not_say_hello_as_a_root_process) {
  BOOST_REQUIRE_MESSAGE(geteuid() == 0, "this test runs as root (CI does) to drop to uid 65534");
  NobodyChild impostor(impersonate);  // forked before any SDK thread starts
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  BOOST_REQUIRE(chmod(agent.dir().c_str(), 0755) == 0);  // let nobody reach the socket
  const std::string endpoint = agent.localEndpoint();

  auto watcher = connectOrFail(endpoint, "FTB.WATCH", "watcher");
  auto sub = watcher->subscribe({.filter = std::string("event_space=") + kVictimSpace, .polling = true});
  BOOST_REQUIRE(sub.ok());
  auto victim = connectOrFail(endpoint, kVictimSpace, "victim");
  BOOST_REQUIRE(victim->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  auto first = victim->publish("NOTE", "real 1");
  BOOST_REQUIRE(first.ok());
  BOOST_REQUIRE(victim->flush(5s).ok());

  // Everything the impostor needs is public (ftbctl clients shows the origin).
  const uint32_t live = first->client_instance;
  const uint32_t next = live + 1;  // the SDK numbers a process's clients in order
  const uint32_t will = live | 0x80000000u;
  const std::string report = impostor.run(
      endpoint + "\n" + first->host + "\n" + std::to_string(first->pid) + "\n" +
      std::to_string(first->process_start_ns) + "\n" + std::to_string(live) + "\n" +
      std::to_string(next) + "\n" + std::to_string(will) + "\n");
  BOOST_TEST_MESSAGE("impostor:\n" << report);
  const std::string not_its_own = "hello: PERMISSION_DENIED: Hello refused: origin pid " +
                                  std::to_string(first->pid) + " started at " +
                                  std::to_string(first->process_start_ns) +
                                  " ns is neither the connecting process";
  BOOST_TEST(report.find("instance " + std::to_string(live) + " " + not_its_own) != std::string::npos, report);
  BOOST_TEST(report.find("instance " + std::to_string(next) + " " + not_its_own) != std::string::npos, report);
  BOOST_TEST(report.find("instance " + std::to_string(will) +
                         " hello: INVALID_ARGUMENT: client_instance " + std::to_string(will) +
                         " has bit 31 set") != std::string::npos,
             report);
  BOOST_TEST(occurrences(report, "publish: UNAUTHENTICATED") == 3u, report);

  // The real client's session is untouched: it publishes on, with no error.
  auto second = victim->publish("NOTE", "real 2");
  BOOST_REQUIRE(second.ok());
  BOOST_REQUIRE(victim->flush(5s).ok());
  BOOST_TEST(victim->stats().agent_errors == 0u, victim->stats().last_agent_error);
  BOOST_TEST(victim->stats().reconnects == 0u);
  // The process's next client opens under the instance the impostor claimed.
  auto late = connectOrFail(endpoint, kVictimSpace, "late");
  BOOST_REQUIRE(late->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  auto late_event = late->publish("NOTE", "late");
  BOOST_REQUIRE(late_event.ok());
  BOOST_REQUIRE(late->flush(5s).ok());
  BOOST_TEST(late_event->client_instance == next);
  BOOST_TEST(late->stats().agent_errors == 0u, late->stats().last_agent_error);

  const auto clients = ftb::testing::queryClients(endpoint);
  const auto* info = ftb::testing::findClient(clients, "victim");
  BOOST_REQUIRE(info != nullptr);
  BOOST_TEST(info->events_published() == 2u);
  BOOST_TEST(ftb::testing::findClient(clients, "impostor") == nullptr);

  // The watcher sees the real events and nothing forged in between.
  std::vector<std::string> payloads;
  while (payloads.empty() || payloads.back() != "late") {
    auto got = watcher->poll(*sub, 5s);
    BOOST_REQUIRE(got.ok() && got->has_value());
    payloads.push_back((**got).event.payload);
  }
  BOOST_TEST(payloads == (std::vector<std::string>{"real 1", "real 2", "late"}), payloads.size() << " events");
  const auto m = ftb::testing::scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_agent_refusals_total", {{"reason", "hello_origin"}}) == 3);
}

BOOST_AUTO_TEST_CASE(the_same_uid_may_resume_its_origin) {
  // The SDK reconnects with a fresh socket while the agent may still hold the
  // old session: the same uid takes it over, as before.
  AgentProcess agent;
  RawIdentity who{.event_space = "FTB.RAW.TEST"};
  RawPeer first(agent.localEndpoint());
  auto a = first.call(ftb::testing::makeHello(who, {{"NOTE", ftb::proto::INFO}}));
  BOOST_REQUIRE(a && a->has_hello_reply());
  RawPeer second(agent.localEndpoint());
  auto b = second.call(ftb::testing::makeHello(who, {{"NOTE", ftb::proto::INFO}}));
  BOOST_TEST(errorText(b) == "hello accepted, accepted_seq=0");
}

BOOST_AUTO_TEST_CASE(tree_messages_from_a_local_socket_are_refused) {
  AgentProcess agent;  // with a TCP endpoint: it is a tree node
  auto watcher = connectOrFail(agent.localEndpoint(), "FTB.WATCH", "watcher");
  auto sub = watcher->subscribe({.filter = "event_space=FTB.RAW.TEST", .polling = true});
  BOOST_REQUIRE(sub.ok());

  // A local user poses as a child agent, then hands in an event under another
  // publisher's name with a sender "verified" as root.
  RawPeer raw(agent.localEndpoint());
  auto join = raw.call(joinRequest());
  BOOST_TEST(errorText(join).find("PERMISSION_DENIED: Tree is accepted only from other agents, not from a "
                                  "local client (uid " + std::to_string(geteuid()) + ")") == 0,
             errorText(join));
  auto batch = raw.call(forgedRootEvent("FTB.RAW.TEST", "NOTE", ftb::proto::INFO, "forged"));
  BOOST_TEST(errorText(batch).find("PERMISSION_DENIED: Tree is accepted only from other agents") == 0,
             errorText(batch));

  // No link to the forger, and the first event the watcher gets is a real one.
  ftb::testing::RawPeer control(agent.ipcEndpoint());
  ftb::proto::Envelope query;
  query.mutable_tree_query();
  auto tree = control.call(query);
  BOOST_REQUIRE(tree && tree->has_tree_info());
  BOOST_TEST(tree->tree_info().links_size() == 0);
  auto real = connectOrFail(agent.localEndpoint(), "FTB.RAW.TEST", "real");
  BOOST_REQUIRE(real->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
  BOOST_REQUIRE(real->publish("NOTE", "real").ok());
  auto got = watcher->poll(*sub, 5s);
  BOOST_REQUIRE(got.ok() && got->has_value());
  BOOST_TEST((**got).event.payload == "real");
}

// The hostile review's first finding: with Curve off, any process that reached
// the TCP port joined as an agent, read refused namespaces and injected events
// as root. An agent as installed (no cluster key) admits no agent at all.
BOOST_AUTO_TEST_CASE(a_fake_agent_over_tcp_is_refused_without_a_cluster_key) {
  AgentProcess agent({"--tree-authentication=curve", "--metrics-listen=127.0.0.1:0"});
  auto watcher = connectOrFail(agent.localEndpoint(), "FTB.WATCH", "watcher");
  auto sub = watcher->subscribe({.filter = "event_space=FTB.JL.JOB1", .polling = true});
  BOOST_REQUIRE(sub.ok());

  RawPeer fake(agent.tcpEndpoint());
  auto join = fake.call(joinRequest());
  BOOST_TEST(errorText(join).find("PERMISSION_DENIED: Tree is accepted only from other agents, not from a "
                                  "remote client") == 0,
             errorText(join));
  BOOST_TEST(errorText(join).find("this agent has no cluster key (curve-key-file), so it admits no agent") !=
                 std::string::npos,
             errorText(join));
  // The injection: a KILL_JOB under another publisher's name, "verified" as root.
  auto batch = fake.call(forgedRootEvent("FTB.JL.JOB1", "KILL_JOB", ftb::proto::FATAL, "x"));
  BOOST_TEST(errorText(batch).find("PERMISSION_DENIED: Tree is accepted only from other agents") == 0,
             errorText(batch));
  BOOST_TEST(ftb::testing::scrapeMetrics(agent.metricsAddress())
                 .sum("ftb_agent_refusals_total", {{"reason", "admission"}}) >= 2);

  // No link to the fake, and the first FTB.JL.JOB1 event the watcher gets is root's own.
  ftb::proto::Envelope query;
  query.mutable_tree_query();
  auto tree = RawPeer(agent.ipcEndpoint()).call(query);
  BOOST_REQUIRE(tree && tree->has_tree_info());
  BOOST_TEST(tree->tree_info().links_size() == 0);
  auto real = connectOrFail(agent.localEndpoint(), "FTB.JL.JOB1", "launcher");
  BOOST_REQUIRE(real->declare({{"KILL_JOB", ftb::Severity::kFatal}}).ok());
  BOOST_REQUIRE(real->publish("KILL_JOB", "real").ok());
  auto got = watcher->poll(*sub, 5s);
  BOOST_REQUIRE(got.ok() && got->has_value());
  BOOST_TEST((**got).event.payload == "real");
}

BOOST_AUTO_TEST_CASE(tree_messages_need_the_agents_key_when_curve_is_on) {
  ftb::testing::TempDir dir;
  const auto cluster = ftb::curve::generateKeyPair().value();
  const auto client = ftb::curve::generateKeyPair().value();
  BOOST_REQUIRE(ftb::curve::writeKeyFiles(cluster, dir.path() + "/cluster").ok());
  std::ofstream(dir.path() + "/authorized") << cluster.public_key << "\n" << client.public_key << "\n";
  AgentProcess agent({"--curve-key-file=" + dir.path() + "/cluster.key",
                      "--curve-authorized-keys=" + dir.path() + "/authorized"});

  // Where the agent answers tree messages: a Curve server with the cluster key, as an agent is.
  zmq::context_t context;
  zmq::socket_t replies(context, zmq::socket_type::router);
  replies.set(zmq::sockopt::linger, 0);
  replies.set(zmq::sockopt::rcvtimeo, 10000);
  replies.set(zmq::sockopt::curve_server, 1);
  replies.set(zmq::sockopt::curve_secretkey, cluster.secret_key);
  replies.bind("tcp://127.0.0.1:*");
  const std::string reply_address = replies.get(zmq::sockopt::last_endpoint);

  // A remote client with its own authorized key: it may connect, not pose as an agent.
  // Sends a probe with `keys`; the answer on the same socket, if `wait`.
  auto ask = [&](const ftb::curve::KeyPair& keys, bool wait = true) -> std::optional<ftb::proto::Envelope> {
    zmq::socket_t socket(context, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, wait ? 0 : 5000);  // a probe not waited for still goes out
    socket.set(zmq::sockopt::rcvtimeo, 5000);
    socket.set(zmq::sockopt::curve_serverkey, cluster.public_key);
    socket.set(zmq::sockopt::curve_publickey, keys.public_key);
    socket.set(zmq::sockopt::curve_secretkey, keys.secret_key);
    socket.connect(agent.tcpEndpoint());
    ftb::proto::Envelope probe =
        treeMessage([](auto& m) { m.mutable_probe()->set_nonce(7); }, reply_address);
    probe.set_request_id(1);
    (void)socket.send(zmq::buffer(ftb::wire::encode(probe)));
    if (!wait) return std::nullopt;
    zmq::message_t answer;
    if (!socket.recv(answer, zmq::recv_flags::none)) return std::nullopt;
    ftb::proto::Envelope e;
    if (!e.ParseFromArray(answer.data(), static_cast<int>(answer.size()))) return std::nullopt;
    return e;
  };
  const std::string refused = errorText(ask(client));
  BOOST_TEST(refused.find("PERMISSION_DENIED: Tree is accepted only from other agents, not from a Curve client (key " +
                          client.public_key + ")") == 0,
             refused);
  // With the agents' key the same probe is served: the agent answers it on its
  // own link, to the address the probe named.
  std::thread prober([&] { (void)ask(cluster, false); });
  zmq::message_t identity, frame;
  const bool answered = replies.recv(identity, zmq::recv_flags::none).has_value() &&
                        replies.recv(frame, zmq::recv_flags::none).has_value();
  prober.join();
  BOOST_REQUIRE_MESSAGE(answered, "no probe reply from the agent");
  ftb::proto::Envelope reply;
  BOOST_REQUIRE(reply.ParseFromArray(frame.data(), static_cast<int>(frame.size())));
  BOOST_TEST(reply.tree().probe_reply().nonce() == 7u, reply.DebugString());
}
