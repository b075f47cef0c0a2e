// The namespace policy with a real agent: a client running as an unprivileged
// user (uid 65534, nobody) may not publish into FTB.JL.*, gets a clear error,
// and its own namespace works; root's publish into FTB.JL.* works. The refusal
// is counted in the metrics. What a user may not subscribe to it cannot read
// through the history query or a subscribe-time replay either.
#define BOOST_TEST_MODULE policy
#include <boost/test/unit_test.hpp>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "client/client.h"
#include "tests/integration/nobody_child.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::waitFor;

namespace {

constexpr uid_t kNobody = 65534;

// Runs `body` in a child process as uid/gid 65534 and returns what it wrote
// to its report (one line per finding), once it has exited.
std::string runAsNobody(const std::function<std::string()>& body) {
  int fds[2];
  BOOST_REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string report;
    if (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0) {
      report = "cannot become uid 65534\n";
    } else {
      report = body();
    }
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) report.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  BOOST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return report;
}

// In the child: publish one event into `space` and report what the agent said.
std::string publishAndReport(const std::string& endpoint, const std::string& space) {
  auto c = ftb::Client::connect({.event_space = space, .client_name = "job", .agent_endpoint = endpoint});
  if (!c.ok()) return space + ": connect failed: " + c.status().toString() + "\n";
  if (!(*c)->declare({{"JOB_NOTE", ftb::Severity::kWarning}}).ok()) return space + ": declare failed\n";
  if (!(*c)->publish("JOB_NOTE", "from nobody").ok()) return space + ": publish failed locally\n";
  if (!(*c)->flush(5s).ok()) return space + ": not acknowledged\n";
  // A refusal travels as an error right before the acknowledgement.
  const auto stats = (*c)->stats();
  (void)(*c)->disconnect();
  return space + ": errors=" + std::to_string(stats.agent_errors) + " last=" + stats.last_agent_error + "\n";
}

// The payloads of serialized events, comma-separated.
std::string payloadsOf(const google::protobuf::RepeatedPtrField<std::string>& events) {
  std::string out;
  for (const auto& bytes : events) {
    ftb::proto::Event e;
    out += (out.empty() ? "" : ",") + (e.ParseFromString(bytes) ? e.payload() : std::string("?"));
  }
  return out;
}

// In the child: what `ftbctl history` and a subscription replaying the last 10
// events give this user, over raw frames.
std::string readHistory(const std::string& endpoint) {
  ftb::testing::RawPeer peer(endpoint);
  ftb::proto::Envelope query;
  query.mutable_history_query();
  auto history = peer.call(query);
  std::string report = "history: " + (history && history->has_history_reply()
                                          ? payloadsOf(history->history_reply().events())
                                          : std::string("no reply"));
  auto hello = peer.call(ftb::testing::makeHello({.event_space = "FTB.NOBODY.JOB"}, {}));
  if (!hello || !hello->has_hello_reply()) return report + "\nhello failed\n";
  ftb::proto::Envelope subscribe;
  subscribe.mutable_subscribe()->set_subscription_id(1);
  subscribe.mutable_subscribe()->mutable_history()->set_last_n(10);
  auto reply = peer.call(subscribe);
  if (!reply || !reply->has_subscribe_reply()) return report + "\nsubscribe failed\n";
  report += "\nreplay: " + std::to_string(reply->subscribe_reply().history_events()) + " events:";
  for (uint32_t i = 0; i < reply->subscribe_reply().history_events(); ++i) {
    auto deliver = peer.recvMatching([](const auto& e) { return e.has_deliver(); }, 5s);
    if (!deliver) return report + " (missing)\n";
    for (const auto& d : deliver->deliver().deliveries()) {
      ftb::proto::Event e;
      report += " " + (e.ParseFromString(d.event()) ? e.payload() : std::string("?"));
    }
  }
  return report + "\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(unprivileged_user_is_refused_reserved_namespaces_only) {
  BOOST_REQUIRE_MESSAGE(geteuid() == 0, "this test runs as root (CI does) to drop to uid 65534");
  AgentProcess agent({"--metrics-listen=127.0.0.1:0"});
  BOOST_REQUIRE(chmod(agent.dir().c_str(), 0755) == 0);  // let nobody reach the socket
  const std::string endpoint = agent.ipcEndpoint();

  // The child forks before this process starts any SDK thread.
  const std::string report = runAsNobody([&] {
    return publishAndReport(endpoint, "FTB.JL.JOB1") + publishAndReport(endpoint, "FTB.JOB.MINE");
  });
  BOOST_TEST_MESSAGE("child: " << report);
  BOOST_TEST(report.find("FTB.JL.JOB1: errors=1 last=PERMISSION_DENIED") != std::string::npos, report);
  BOOST_TEST(report.find("publishing into FTB.JL.JOB1 is not allowed for uid 65534") != std::string::npos,
             report);
  BOOST_TEST(report.find("only 'uid=0 self' publish there") != std::string::npos, report);
  BOOST_TEST(report.find("FTB.JOB.MINE: errors=0") != std::string::npos, report);

  // Only the allowed event reached the history; root may publish into FTB.JL.
  auto root = connectOrFail(endpoint, "FTB.JL.JOB1", "launcher");
  BOOST_REQUIRE(root->declare({{"JOB_NOTE", ftb::Severity::kWarning}}).ok());
  BOOST_REQUIRE(root->publish("JOB_NOTE", "from root").ok());
  BOOST_REQUIRE(root->flush(5s).ok());
  BOOST_TEST(root->stats().agent_errors == 0u);

  const auto m = ftb::testing::scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_agent_refusals_total", {{"reason", "publish_policy"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"event_space", "FTB.JL.JOB1"}}) == 1);
  BOOST_TEST(m.sum("ftb_agent_events_received_total", {{"event_space", "FTB.JOB.MINE"}}) == 1);
}

BOOST_AUTO_TEST_CASE(subscribe_rules_withhold_events) {
  ftb::testing::TempDir dir;
  const std::string policy = dir.path() + "/policy.conf";
  std::ofstream(policy) << "publish * *\nsubscribe FTB.SECRET.* uid=4242\nsubscribe * *\n";
  AgentProcess agent({"--policy-file=" + policy, "--metrics-listen=127.0.0.1:0"});
  auto sub = connectOrFail(agent.localEndpoint(), "FTB.TEST.SUB", "sub");
  auto id = sub->subscribe({.filter = "", .polling = true});
  BOOST_REQUIRE(id.ok());
  for (const std::string space : {"FTB.SECRET.A", "FTB.OPEN.A"}) {
    auto pub = connectOrFail(agent.localEndpoint(), space, "pub");
    BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
    BOOST_REQUIRE(pub->publish("NOTE", space).ok());
    BOOST_REQUIRE(pub->flush(5s).ok());
  }
  auto got = sub->poll(*id, 5s);
  BOOST_REQUIRE(got.ok() && got->has_value());
  BOOST_TEST((**got).event.event_space == "FTB.OPEN.A");
  auto more = sub->poll(*id, 200ms);
  BOOST_TEST(!more->has_value());
  // A history replay is withheld the same way.
  auto replay = sub->subscribe({.filter = "", .polling = true, .history = ftb::HistoryReplay{.last_n = 10}});
  BOOST_REQUIRE(replay.ok());
  auto first = sub->poll(*replay, 5s);
  BOOST_REQUIRE(first.ok() && first->has_value());
  BOOST_TEST((**first).event.event_space == "FTB.OPEN.A");
  auto second = sub->poll(*replay, 200ms);
  BOOST_TEST(!second->has_value());
  const auto m = ftb::testing::scrapeMetrics(agent.metricsAddress());
  BOOST_TEST(m.sum("ftb_agent_events_withheld_total", {{"event_space", "FTB.SECRET.A"}}) == 1);  // live only
}

BOOST_AUTO_TEST_CASE(a_bad_policy_file_stops_the_agent_at_start) {
  ftb::testing::TempDir dir;
  const std::string policy = dir.path() + "/policy.conf";
  std::ofstream(policy) << "publish FTB.X.* nobody-knows\n";
  BOOST_CHECK_THROW(AgentProcess({"--policy-file=" + policy}), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(history_and_replay_answer_to_the_subscribe_check) {
  BOOST_REQUIRE_MESSAGE(geteuid() == 0, "this test runs as root (CI does) to drop to uid 65534");
  ftb::testing::NobodyChild nobody(readHistory);  // forked before any SDK thread starts
  ftb::testing::TempDir dir;
  const std::string policy = dir.path() + "/policy.conf";
  std::ofstream(policy) << "publish * *\nsubscribe FTB.SECRET.* uid=0\nsubscribe * *\n";
  AgentProcess agent({"--policy-file=" + policy});
  BOOST_REQUIRE(chmod(agent.dir().c_str(), 0755) == 0);  // let nobody reach the socket
  for (const std::string space : {"FTB.SECRET.KEYS", "FTB.OPEN.A"}) {
    auto pub = connectOrFail(agent.localEndpoint(), space, "pub");
    BOOST_REQUIRE(pub->declare({{"NOTE", ftb::Severity::kInfo}}).ok());
    BOOST_REQUIRE(pub->publish("NOTE", space == "FTB.OPEN.A" ? "open" : "the key").ok());
    BOOST_REQUIRE(pub->flush(5s).ok());
  }
  // Root may see both.
  ftb::testing::RawPeer root(agent.ipcEndpoint());
  ftb::proto::Envelope query;
  query.mutable_history_query();
  auto all = root.call(query);
  BOOST_REQUIRE(all && all->has_history_reply());
  BOOST_TEST(payloadsOf(all->history_reply().events()) == "the key,open");
  // Nobody sees only what it could subscribe to, and the replay count says so.
  const std::string report = nobody.run(agent.ipcEndpoint());
  BOOST_TEST(report == "history: open\nreplay: 1 events: open\n", report);
}
