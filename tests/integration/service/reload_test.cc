// SIGHUP and SIGTERM on a real ftb-agent. A reload applies what can change at
// run time (history limits, tree seeds, the namespace policy file ...), keeps
// and names a changed setting that needs a restart (agent/config/settings.cc), and keeps
// the whole current configuration when the new one is bad, saying why in its
// sd_notify STATUS (the test listens on NOTIFY_SOCKET, so each reload's end is
// awaited, not slept on). SIGTERM hands the events queued for a subscriber that
// was not reading to it before the agent exits.
#define BOOST_TEST_MODULE agent_reload
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <fstream>
#include <set>
#include <sstream>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/notify_socket.h"
#include "tests/support/spawn.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::proto::Envelope;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::findClient;
using ftb::testing::hasLine;
using ftb::testing::NotifySocket;
using ftb::testing::queryStatus;
using ftb::testing::RawPeer;
using ftb::testing::runfile;
using ftb::testing::spawnNotified;
using ftb::testing::TempDir;
using ftb::testing::waitFor;

namespace {

// An agent reading `config`, reporting to `notify`; READY=1 consumed.
std::unique_ptr<AgentProcess> startNotified(NotifySocket& notify, const std::string& config,
                                            std::vector<std::string> flags = {}) {
  flags.push_back("--config=" + config);
  setenv("NOTIFY_SOCKET", notify.path().c_str(), 1);  // inherited by the agent only
  auto agent = std::make_unique<AgentProcess>(flags);
  unsetenv("NOTIFY_SOCKET");
  BOOST_REQUIRE_MESSAGE(notify.receiveLine("READY=1", 10s), "no READY=1 at start");
  return agent;
}

// SIGHUP; returns the STATUS= line of the READY=1 that ends the reload.
std::string reload(AgentProcess& agent, NotifySocket& notify) {
  BOOST_REQUIRE_EQUAL(kill(agent.pid(), SIGHUP), 0);
  BOOST_REQUIRE_MESSAGE(notify.receiveLine("RELOADING=1", 10s), "no RELOADING=1 after SIGHUP");
  auto ready = notify.receiveLine("READY=1", 10s);
  BOOST_REQUIRE_MESSAGE(ready, "no READY=1 after the reload");
  const auto at = ready->find("STATUS=");
  return at == std::string::npos ? "" : ready->substr(at + 7, ready->find('\n', at) - at - 7);
}

void publish(ftb::Client& pub, int count) {
  for (int i = 0; i < count; ++i) BOOST_REQUIRE(pub.publish("TICK", std::to_string(i)).ok());
  BOOST_REQUIRE(pub.flush(10s).ok());
}

}  // namespace

BOOST_AUTO_TEST_CASE(reload_applies_new_limits_and_keeps_everything_on_a_bad_file) {
  TempDir dir;
  const std::string config = dir.path() + "/agent.conf";
  std::ofstream(config) << "history-events = 100\n";
  NotifySocket notify;
  auto agent = startNotified(notify, config);
  auto pub = connectOrFail(agent->ipcEndpoint(), "FTB.TEST.RELOAD", "reload-pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());
  publish(*pub, 10);
  BOOST_REQUIRE(waitFor([&] { return queryStatus(agent->ipcEndpoint()).history_events() == 10; }));

  std::ofstream(config) << "history-events = 3\n";
  const std::string applied = reload(*agent, notify);
  BOOST_CHECK_MESSAGE(applied.find("failed") == std::string::npos, "status: " << applied);
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).history_events(), 3u);  // trimmed at once
  publish(*pub, 5);
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).history_events(), 3u);

  // A value that does not parse: the agent says so and keeps history-events = 3
  // (not the embedded default of 10000).
  std::ofstream(config) << "history-events = lots\n";
  std::string refused = reload(*agent, notify);
  BOOST_CHECK_MESSAGE(refused.find("last reload failed") != std::string::npos &&
                          refused.find("history-events") != std::string::npos,
                      "status: " << refused);
  // A policy file that cannot be read: refused as a whole, limits unchanged too.
  std::ofstream(config) << "history-events = 50\npolicy-file = " << dir.path() << "/missing.policy\n";
  refused = reload(*agent, notify);
  BOOST_CHECK_MESSAGE(refused.find("last reload failed") != std::string::npos, "status: " << refused);
  publish(*pub, 20);
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).history_events(), 3u);
}

BOOST_AUTO_TEST_CASE(a_changed_restart_only_setting_keeps_its_value_and_is_named_while_live_ones_apply) {
  TempDir dir;
  const std::string config = dir.path() + "/agent.conf";
  std::ofstream(config) << "name = \"before\"\nhistory-events = 100\nmetrics-max-namespaces = 10\n";
  NotifySocket notify;
  auto agent = startNotified(notify, config);
  BOOST_REQUIRE_EQUAL(queryStatus(agent->ipcEndpoint()).agent_name(), "before");
  auto pub = connectOrFail(agent->ipcEndpoint(), "FTB.TEST.RELOAD", "reload-pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());
  publish(*pub, 10);
  BOOST_REQUIRE(waitFor([&] { return queryStatus(agent->ipcEndpoint()).history_events() == 10; }));

  // name and metrics-max-namespaces need a restart; history-events applies live.
  std::ofstream(config) << "name = \"after\"\nhistory-events = 3\nmetrics-max-namespaces = 20\n";
  const std::string status = reload(*agent, notify);
  BOOST_CHECK_MESSAGE(status.find("failed") == std::string::npos, "status: " << status);
  BOOST_CHECK_MESSAGE(status.find("take effect at restart: name, metrics-max-namespaces") != std::string::npos,
                      "status: " << status);
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).agent_name(), "before");  // kept until a restart
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).history_events(), 3u);   // applied at once

  // What systemctl reload runs: a success (exit 0) that warns about the rest.
  const std::string log = dir.path() + "/reload.log";
  const pid_t requester = ftb::testing::spawn(
      {ftb::testing::runfile("agent/ftb-agent"), "--reload", std::to_string(agent->pid())}, log);
  BOOST_REQUIRE_MESSAGE(notify.receiveLine("RELOADING=1", 10s), "no RELOADING=1 after --reload");
  int exit_status = -1;
  BOOST_REQUIRE_MESSAGE(waitFor([&] { return waitpid(requester, &exit_status, WNOHANG) == requester; }, 70s),
                        "ftb-agent --reload did not return");
  BOOST_CHECK(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0);
  std::stringstream said;
  said << std::ifstream(log).rdbuf();
  BOOST_CHECK_MESSAGE(said.str().find("take effect only at restart") != std::string::npos, "said: " << said.str());
  BOOST_CHECK_EQUAL(queryStatus(agent->ipcEndpoint()).agent_name(), "before");
}

BOOST_AUTO_TEST_CASE(reload_with_new_tree_seeds_joins_their_tree) {
  AgentProcess first;
  TempDir dir;
  const std::string config = dir.path() + "/agent.conf";
  std::ofstream(config) << "log-level = warn\n";
  NotifySocket notify;
  auto second = startNotified(notify, config);
  auto rootOf = [](const AgentProcess& agent) -> std::string {
    RawPeer peer(agent.ipcEndpoint());
    Envelope query;
    query.mutable_tree_query();
    auto reply = peer.call(query, 2s);
    if (!reply || !reply->has_tree_info() || reply->tree_info().path().empty()) return "";
    return reply->tree_info().path(0).address();
  };
  BOOST_REQUIRE(waitFor([&] { return !rootOf(first).empty() && !rootOf(*second).empty(); }));
  BOOST_REQUIRE_NE(rootOf(first), rootOf(*second));  // two trees of one agent each

  std::ofstream(config) << "log-level = warn\ntree-seeds = " << first.tcpEndpoint() << "\n";
  reload(*second, notify);
  BOOST_CHECK_MESSAGE(waitFor([&] { return rootOf(first) == rootOf(*second); }, 30s),
                      "the agents did not end in one tree: roots " << rootOf(first) << " and "
                                                                    << rootOf(*second));
}

BOOST_AUTO_TEST_CASE(sigterm_hands_queued_events_to_a_subscriber_that_was_not_reading) {
  constexpr int kEvents = 3000;
  AgentProcess agent({"--socket-hwm=4", "--client-timeout-ms=60000"});
  // A raw subscriber that reads nothing until the agent is told to stop, on
  // the agent's own stream socket (the SDK's default transport).
  RawPeer sub(agent.streamEndpoint());
  ftb::testing::RawIdentity who{.client_name = "late-reader", .event_space = "FTB.TEST.DRAIN"};
  BOOST_REQUIRE(sub.call(ftb::testing::makeHello(who, {})));
  Envelope subscribe;
  subscribe.mutable_subscribe()->set_subscription_id(1);
  subscribe.mutable_subscribe()->set_filter("event_space=FTB.TEST.DRAINPUB");
  BOOST_REQUIRE(sub.call(subscribe));

  auto pub = connectOrFail(agent.ipcEndpoint(), "FTB.TEST.DRAINPUB", "drain-pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());
  const std::string padding(400, 'x');
  for (int i = 0; i < kEvents; ++i) {
    BOOST_REQUIRE(pub->publish("TICK", std::to_string(i) + " " + padding).ok());
  }
  BOOST_REQUIRE(pub->flush(10s).ok());
  uint64_t queued = 0;
  BOOST_REQUIRE(waitFor([&] {
    auto clients = ftb::testing::queryClients(agent.ipcEndpoint());
    auto* late = findClient(clients, "late-reader");
    queued = late ? late->queue_depth() : 0;
    return queued > 0;
  }));
  BOOST_TEST_MESSAGE(queued << " events queued in the agent at SIGTERM");
  pub.reset();

  BOOST_REQUIRE_EQUAL(kill(agent.pid(), SIGTERM), 0);
  std::set<std::string> received;
  uint64_t missed = 0;
  while (received.size() < kEvents) {
    auto envelope = sub.recv(20s);
    if (!envelope) break;
    if (!envelope->has_deliver()) continue;
    missed += envelope->deliver().missed_before();
    for (const auto& delivery : envelope->deliver().deliveries()) {
      ftb::proto::Event event;
      BOOST_REQUIRE(event.ParseFromString(delivery.event()));
      received.insert(event.payload().substr(0, event.payload().find(' ')));
    }
  }
  BOOST_CHECK_EQUAL(missed, 0u);
  BOOST_CHECK_EQUAL(received.size(), static_cast<size_t>(kEvents));
  agent.terminate();  // reaps the exited agent
}

// Through the SDK: a subscriber process stopped (SIGSTOP: its SDK threads read
// nothing) while the agent is handed 64 KB for it, which the agent writes to
// the connection (it fits in the kernel's socket buffers) before it stops and
// exits; then the subscriber runs again. Every event must arrive: with
// ZMQ_IMMEDIATE on the SDK's socket, libzmq read them and the connection's end
// together and discarded what the SDK had not taken yet (tests/system's
// stop_drain_test lost events this way under load).
BOOST_AUTO_TEST_CASE(a_stopped_sdk_subscriber_gets_every_event_the_stopped_agent_had_written) {
  constexpr int kEvents = 64;
  NotifySocket notify;
  TempDir dir;
  // The agent's own stream socket, the SDK's default transport: the agent
  // holds what a socket has not taken and writes it out before it exits.
  const std::string endpoint = "unix://" + dir.path() + "/agent.stream";
  // (--local-endpoint auto: the IPC socket's path with the extension .stream.)
  const pid_t agent = spawnNotified({runfile("agent/ftb-agent"), "--ipc-endpoint=ipc://" + dir.path() + "/agent.sock",
                                     "--tcp-endpoint=none",
                                     "--log-level=warn", "--client-timeout-ms=60000"},
                                    notify);
  BOOST_REQUIRE(notify.receiveLine("READY=1", 10s));
  int ready[2], report[2];
  BOOST_REQUIRE(pipe(ready) == 0 && pipe(report) == 0);
  // Forked before this process has any ZeroMQ context (the SDK's fork rule).
  const pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    int count = 0;
    auto sub = ftb::Client::connect({.event_space = "FTB.TEST.DRAINSDK", .client_name = "stopped-sub",
                                     .agent_endpoint = endpoint});
    if (sub.ok()) {
      auto id = (*sub)->subscribe({.filter = "event_space=FTB.TEST.DRAINSDKPUB", .polling = true});
      if (id.ok()) {
        (void)!write(ready[1], "r", 1);
        while (count < kEvents) {
          auto n = (*sub)->poll(*id, 10s);
          if (!n.ok() || !n->has_value()) break;  // 10 s without an event: the rest is lost
          if ((*n)->kind == ftb::Notification::Kind::kEvent) ++count;
        }
      }
    }
    (void)!write(report[1], &count, sizeof count);
    _exit(0);
  }
  char byte;
  BOOST_REQUIRE_EQUAL(read(ready[0], &byte, 1), 1);
  BOOST_REQUIRE_EQUAL(kill(child, SIGSTOP), 0);

  auto pub = connectOrFail(endpoint, "FTB.TEST.DRAINSDKPUB", "drain-pub");
  BOOST_REQUIRE(pub->declare({{"TICK", ftb::Severity::kInfo}}).ok());
  const std::string payload(1000, 'x');
  for (int i = 0; i < kEvents; ++i) BOOST_REQUIRE(pub->publish("TICK", payload).ok());
  BOOST_REQUIRE(pub->flush(10s).ok());
  pub.reset();

  BOOST_REQUIRE_EQUAL(kill(agent, SIGTERM), 0);
  BOOST_REQUIRE_MESSAGE(notify.receiveLine("STOPPING=1", 10s), "no STOPPING=1 after SIGTERM");
  int status = 0;
  BOOST_REQUIRE_EQUAL(waitpid(agent, &status, 0), agent);
  BOOST_REQUIRE_EQUAL(kill(child, SIGCONT), 0);
  int count = -1;
  BOOST_REQUIRE_EQUAL(read(report[0], &count, sizeof count), static_cast<ssize_t>(sizeof count));
  waitpid(child, &status, 0);
  BOOST_CHECK_EQUAL(count, kEvents);
}
