// Last will (docs/RECOVERY_EVENTS.md): a client that dies without
// disconnecting has its will published by its agent, once, within
// milliseconds, together with FTB_CLIENT_LOST in FTB.AGENT; a clean
// disconnect, an agent restart, or a client's own reconnect publish neither.
// Real agent, real client processes (forked before this process starts any
// SDK thread), a real subscriber. The agent's client timeout is set far above
// the bound, so only the fast path (pidfd + socket probe) can meet it; the
// latency itself is printed, not asserted.
#define BOOST_TEST_MODULE last_will
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::waitFor;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kClientTimeoutMs = 120000;
const std::vector<std::string> kAgentFlags = {
    "--client-timeout-ms=" + std::to_string(kClientTimeoutMs), "--heartbeat-interval-ms=1000"};
// What a subscriber must see within this after a kill (the aim is tens of
// ms; the bound leaves room for a loaded 2-core machine, and is far below the
// 120 s heartbeat timeout that would otherwise be the only detection).
constexpr auto kBound = 15000ms;
constexpr char kWillFilter[] =
    "event_space=FTB.WILL.**|FTB.AGENT, event_name=RANK_GONE|FTB_CLIENT_LOST";

// A forked process with an SDK client that gave a last will; it dies or
// disconnects on command.
class WillChild {
 public:
  WillChild(const std::string& endpoint, const std::string& name) {
    int ready[2], cmd[2];
    BOOST_REQUIRE(pipe(ready) == 0 && pipe(cmd) == 0);
    pid_ = fork();
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      close(ready[0]);
      close(cmd[1]);
      auto c = ftb::Client::connect(
          {.event_space = "FTB.WILL.RANKS",
           .client_name = name,
           .job_id = "J1",
           .agent_endpoint = endpoint,
           .last_will = ftb::LastWill{.event_name = "RANK_GONE",
                                      .severity = ftb::Severity::kFatal,
                                      .payload = name + " rank=3",
                                      .tags = {{"rank", "3"}, {"who", name}}}});
      if (!c.ok()) _exit(3);
      (void)!write(ready[1], "r", 1);
      char what = 0;
      (void)!read(cmd[0], &what, 1);
      if (what == 'k') raise(SIGKILL);
      (void)(*c)->disconnect();
      _exit(0);
    }
    close(ready[1]);
    close(cmd[0]);
    ready_fd_ = ready[0];
    cmd_fd_ = cmd[1];
    pollfd p{ready_fd_, POLLIN, 0};
    char r = 0;
    const bool up = ::poll(&p, 1, 20000) == 1 && read(ready_fd_, &r, 1) == 1;
    if (!up) reap(SIGKILL);
    BOOST_REQUIRE_MESSAGE(up, "the child client did not connect");
  }
  ~WillChild() {
    if (pid_ > 0) reap(SIGKILL);
    close(ready_fd_);
    close(cmd_fd_);
  }
  pid_t pid() const { return pid_; }

  // SIGKILL; returns the time it was sent.
  Clock::time_point kill() {
    const auto at = Clock::now();
    reap(SIGKILL);
    return at;
  }
  // disconnect() and exit; reaps it.
  void exitCleanly() {
    (void)!write(cmd_fd_, "c", 1);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }

 private:
  void reap(int signal) {
    ::kill(pid_, signal);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid_ = -1;
  int ready_fd_ = -1;
  int cmd_fd_ = -1;
};

struct Subscriber {
  explicit Subscriber(const std::string& endpoint) {
    auto c = ftb::Client::connect(
        {.event_space = "FTB.WILL.WATCH", .client_name = "watcher", .agent_endpoint = endpoint});
    BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
    client = std::move(c).value();
    auto s = client->subscribe({.filter = kWillFilter, .polling = true});
    BOOST_REQUIRE_MESSAGE(s.ok(), s.status().toString());
    id = *s;
  }
  // Events until one satisfies `last` (included), or the deadline.
  std::vector<ftb::Event> until(const std::function<bool(const ftb::Event&)>& last,
                                std::chrono::milliseconds deadline) {
    std::vector<ftb::Event> got;
    const auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
      auto n = client->poll(id, std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()));
      BOOST_REQUIRE(n.ok());
      if (!n->has_value()) break;
      BOOST_REQUIRE_MESSAGE((*n)->kind == ftb::Notification::Kind::kEvent, "events were missed");
      got.push_back((*n)->event);
      if (last(got.back())) break;
    }
    return got;
  }
  std::unique_ptr<ftb::Client> client;
  ftb::SubscriptionId id = 0;
};

bool isWillOf(const ftb::Event& e, pid_t pid) {
  return e.event_name == "RANK_GONE" && e.id.pid == static_cast<uint32_t>(pid);
}
bool isLostNoticeOf(const ftb::Event& e, pid_t pid) {
  auto it = e.tags.find("pid");
  return e.event_name == "FTB_CLIENT_LOST" && it != e.tags.end() && it->second == std::to_string(pid);
}
int count(const std::vector<ftb::Event>& events, const std::function<bool(const ftb::Event&)>& f) {
  return static_cast<int>(std::count_if(events.begin(), events.end(), f));
}

// Kills `marker` and returns every event up to its FTB_CLIENT_LOST: events
// from one agent arrive in the order it published them, so anything the agent
// published for earlier departures is in the list.
std::vector<ftb::Event> eventsUpToDeathOf(Subscriber& sub, WillChild& marker) {
  const pid_t pid = marker.pid();
  (void)marker.kill();
  auto got = sub.until([&](const ftb::Event& e) { return isLostNoticeOf(e, pid); }, kBound);
  BOOST_REQUIRE_MESSAGE(!got.empty() && isLostNoticeOf(got.back(), pid),
                        "the marker's FTB_CLIENT_LOST did not arrive");
  return got;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_killed_client_has_its_will_and_a_lost_notice_published_once_at_once) {
  AgentProcess agent(kAgentFlags);
  WillChild child(agent.localEndpoint(), "rank3");  // before any SDK thread here
  WillChild marker(agent.localEndpoint(), "marker");
  const pid_t pid = child.pid();
  Subscriber sub(agent.localEndpoint());

  const auto killed = child.kill();
  auto got = sub.until([&](const ftb::Event& e) { return isLostNoticeOf(e, pid); }, kBound);
  const auto latency = std::chrono::duration<double, std::milli>(Clock::now() - killed).count();
  BOOST_TEST_MESSAGE("kill -9 -> will + FTB_CLIENT_LOST at the subscriber: " << latency << " ms");
  BOOST_REQUIRE_MESSAGE(count(got, [&](auto& e) { return isLostNoticeOf(e, pid); }) == 1,
                        "no FTB_CLIENT_LOST within " << kBound.count() << " ms of the kill");
  BOOST_REQUIRE_EQUAL(count(got, [&](auto& e) { return isWillOf(e, pid); }), 1);

  const ftb::Event& will = *std::find_if(got.begin(), got.end(), [&](auto& e) { return isWillOf(e, pid); });
  BOOST_TEST(will.event_space == "FTB.WILL.RANKS");
  BOOST_TEST((will.severity == ftb::Severity::kFatal));
  BOOST_TEST(will.client_name == "rank3");
  BOOST_TEST(will.job_id == "J1");
  BOOST_TEST(will.payload == "rank3 rank=3");
  BOOST_TEST(will.tags.at("rank") == "3");
  BOOST_TEST(will.tags.at("who") == "rank3");
  BOOST_TEST(will.id.seq == 1u);
  BOOST_TEST((will.id.client_instance & 0x80000000u) != 0u);
  BOOST_TEST(will.sender.pid == static_cast<uint32_t>(pid));
  BOOST_TEST(will.sender.credentials_known);

  const ftb::Event& lost = got.back();
  BOOST_TEST(lost.event_space == "FTB.AGENT");
  BOOST_TEST((lost.severity == ftb::Severity::kWarning));
  BOOST_TEST(lost.tags.at("space") == "FTB.WILL.RANKS");
  BOOST_TEST(lost.tags.at("client") == "rank3");
  BOOST_TEST(lost.tags.at("uid") == std::to_string(getuid()));
  BOOST_TEST(!lost.tags.at("node").empty());
  BOOST_TEST(lost.tags.at("will") == "1");
  BOOST_TEST(lost.tags.at("job") == "J1");

  // Exactly once: nothing more about `child` up to the next death.
  auto later = eventsUpToDeathOf(sub, marker);
  BOOST_TEST(count(later, [&](auto& e) { return isWillOf(e, pid) || isLostNoticeOf(e, pid); }) == 0);
  BOOST_TEST(count(later, [&](auto& e) { return isWillOf(e, marker.pid()); }) <= 1);
}

BOOST_AUTO_TEST_CASE(a_clean_disconnect_publishes_neither_will_nor_notice) {
  AgentProcess agent(kAgentFlags);
  WillChild child(agent.localEndpoint(), "leaver");
  WillChild marker(agent.localEndpoint(), "marker");
  const pid_t pid = child.pid();
  Subscriber sub(agent.localEndpoint());

  child.exitCleanly();
  BOOST_REQUIRE(waitFor([&] {
    return ftb::testing::findClient(ftb::testing::queryClients(agent.ipcEndpoint()), "leaver") == nullptr;
  }));
  const pid_t marker_pid = marker.pid();
  auto got = eventsUpToDeathOf(sub, marker);
  BOOST_TEST(count(got, [&](auto& e) { return isWillOf(e, pid) || isLostNoticeOf(e, pid); }) == 0);
  // The marker shows the path works in this very run.
  BOOST_TEST(count(got, [&](auto& e) { return isWillOf(e, marker_pid); }) == 1);
}

BOOST_AUTO_TEST_CASE(an_agent_restart_publishes_no_will_and_the_new_agent_keeps_it) {
  AgentProcess agent(kAgentFlags);
  WillChild child(agent.localEndpoint(), "survivor");
  const pid_t pid = child.pid();
  Subscriber sub(agent.localEndpoint());

  agent.terminate();
  agent.restart();
  // Both SDKs say Hello to the new agent by themselves.
  BOOST_REQUIRE(waitFor([&] {
    const auto clients = ftb::testing::queryClients(agent.ipcEndpoint());
    return ftb::testing::findClient(clients, "survivor") != nullptr &&
           ftb::testing::findClient(clients, "watcher") != nullptr;
  }, 30s));
  BOOST_REQUIRE(waitFor([&] { return sub.client->stats().connected; }));

  // The will was handed to the new agent in the new Hello: a kill now
  // publishes it, once; nothing was published for the restart before it.
  auto got = eventsUpToDeathOf(sub, child);
  BOOST_TEST(count(got, [&](auto& e) { return isWillOf(e, pid); }) == 1);
  BOOST_TEST(count(got, [&](auto& e) { return isLostNoticeOf(e, pid); }) == 1);
  BOOST_TEST(count(got, [&](auto& e) { return e.event_name == "FTB_CLIENT_LOST"; }) == 1);
}

// A client that opens a fresh socket (the SDK does when the agent stops
// answering) and says Hello again from the same live process: the old
// socket's end is not a death.
BOOST_AUTO_TEST_CASE(a_client_that_reconnects_itself_does_not_trigger_its_will) {
  AgentProcess agent(kAgentFlags);
  WillChild marker(agent.localEndpoint(), "marker");
  Subscriber sub(agent.localEndpoint());
  ftb::testing::RawIdentity who{.client_name = "reconnecter", .event_space = "FTB.WILL.RANKS"};
  auto hello = [&] {
    ftb::proto::Envelope h = ftb::testing::makeHello(who, {{"RANK_GONE", ftb::proto::FATAL}});
    auto* will = h.mutable_hello()->mutable_last_will();
    will->set_event_name("RANK_GONE");
    will->set_severity(ftb::proto::FATAL);
    will->set_payload("reconnecter");
    return h;
  };
  {
    ftb::testing::RawPeer first(agent.ipcEndpoint());
    auto r = first.call(hello());
    BOOST_REQUIRE(r && r->has_hello_reply());
  }  // socket closed without a Goodbye; this process lives on
  ftb::testing::RawPeer second(agent.ipcEndpoint());
  auto r = second.call(hello());
  BOOST_REQUIRE(r && r->has_hello_reply());
  ftb::proto::Envelope bye;
  bye.mutable_goodbye();
  second.send(bye);
  BOOST_REQUIRE(waitFor([&] {
    return ftb::testing::findClient(ftb::testing::queryClients(agent.ipcEndpoint()), "reconnecter") == nullptr;
  }));
  auto got = eventsUpToDeathOf(sub, marker);
  BOOST_TEST(count(got, [](auto& e) { return e.client_name == "reconnecter" && e.event_name == "RANK_GONE"; }) == 0);
  BOOST_TEST(count(got, [](auto& e) { return e.event_name == "FTB_CLIENT_LOST"; }) == 1);
}

BOOST_AUTO_TEST_CASE(a_will_that_could_not_be_published_refuses_the_connect) {
  AgentProcess agent(kAgentFlags);
  ftb::testing::RawIdentity who{.client_name = "bad", .event_space = "FTB.WILL.RANKS"};
  // Not declared.
  ftb::testing::RawPeer peer(agent.ipcEndpoint());
  ftb::proto::Envelope h = ftb::testing::makeHello(who, {});
  h.mutable_hello()->mutable_last_will()->set_event_name("RANK_GONE");
  h.mutable_hello()->mutable_last_will()->set_severity(ftb::proto::FATAL);
  auto r = peer.call(h);
  BOOST_REQUIRE(r && r->has_error());
  BOOST_TEST(r->error().message().find("not among the Hello's declarations") != std::string::npos);
  // Too big, through the SDK: connect() names the limit.
  auto c = ftb::Client::connect({.event_space = "FTB.WILL.RANKS", .client_name = "big",
                                 .agent_endpoint = agent.localEndpoint(),
                                 .last_will = ftb::LastWill{.event_name = "RANK_GONE",
                                                            .payload = std::string(100000, 'x')}});
  BOOST_REQUIRE(!c.ok());
  BOOST_TEST(c.status().message().find("exceeds this agent's limit") != std::string::npos, c.status().toString());
}
