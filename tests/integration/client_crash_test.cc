// A client process that dies without saying goodbye (_exit, SIGKILL) must not
// leave its session and subscriptions in the agent: they are freed within the
// agent's --client-timeout-ms (at once, for a local process the agent watches),
// and the others notice nothing but the agent's FTB_CLIENT_LOST.
#define BOOST_TEST_MODULE client_crash
#include <boost/test/unit_test.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/client.h"
#include "tests/integration/raw_peer.h"
#include "tests/support/agent_process.h"
#include "tests/support/test_clients.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::connectOrFail;
using ftb::testing::waitFor;
using Clock = std::chrono::steady_clock;

namespace {

// 30 heartbeats: a live client on a loaded machine is never that late, so
// only the dead ones are expired.
constexpr int kClientTimeoutMs = 3000;
const std::vector<std::string> kAgentFlags = {
    "--client-timeout-ms=" + std::to_string(kClientTimeoutMs), "--heartbeat-interval-ms=100"};
// Freed "within the client timeout": plus what a loaded 2-core machine may add.
constexpr auto kFreedWithin = std::chrono::milliseconds(kClientTimeoutMs) + std::chrono::seconds(20);
constexpr char kChildFilter[] = "event_space=FTB.CRASH.**, severity>=warning";

enum class Death { kExit, kSigkill };

// A forked process that connects through the SDK, subscribes, reports that it
// is ready, waits for the word and then dies without disconnecting.
class CrashingChild {
 public:
  CrashingChild(const AgentProcess& agent, Death death) {
    int ready[2], die[2];
    BOOST_REQUIRE(pipe(ready) == 0 && pipe(die) == 0);
    pid_ = fork();
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      close(ready[0]);
      close(die[1]);
      auto c = ftb::Client::connect({.event_space = "FTB.CRASH.CHILD",
                                     .client_name = "doomed",
                                     .agent_endpoint = agent.localEndpoint()});
      if (!c.ok()) _exit(3);
      if (!(*c)->subscribe({.filter = kChildFilter, .polling = true}).ok()) _exit(4);
      if (!(*c)->declare({{"LAST_WORDS", ftb::Severity::kInfo}}).ok()) _exit(5);
      (void)!write(ready[1], "r", 1);
      char go;
      (void)!read(die[0], &go, 1);
      if (death == Death::kSigkill) raise(SIGKILL);
      _exit(0);  // no destructor, no Goodbye
    }
    close(ready[1]);
    close(die[0]);
    ready_fd_ = ready[0];
    die_fd_ = die[1];
    pollfd p{ready_fd_, POLLIN, 0};
    char r = 0;
    const bool up = ::poll(&p, 1, 20000) == 1 && read(ready_fd_, &r, 1) == 1;
    if (!up) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    BOOST_REQUIRE_MESSAGE(up, "the child client did not connect and subscribe");
  }
  ~CrashingChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(ready_fd_);
    close(die_fd_);
  }

  // Tells it to die and reaps it; returns its wait status.
  int crash() {
    (void)!write(die_fd_, "d", 1);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int ready_fd_ = -1;
  int die_fd_ = -1;
};

const ftb::proto::ClientInfo* findByPid(const ftb::proto::ClientsReply& clients, pid_t pid) {
  for (const auto& c : clients.clients()) {
    if (c.origin().pid() == static_cast<uint32_t>(pid)) return &c;
  }
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(exited_clients_are_freed_within_the_client_timeout) {
  AgentProcess agent(kAgentFlags);
  // Children first: this process must not run SDK threads when it forks.
  std::vector<std::unique_ptr<CrashingChild>> children;
  for (int i = 0; i < 3; ++i) children.push_back(std::make_unique<CrashingChild>(agent, Death::kExit));

  auto survivor = connectOrFail(agent.localEndpoint(), "FTB.CRASH.SURVIVOR", "survivor");
  BOOST_REQUIRE(survivor->declare({{"STILL_HERE", ftb::Severity::kWarning}}).ok());
  auto survivor_sub = survivor->subscribe({.filter = "event_name=STILL_HERE", .polling = true});
  BOOST_REQUIRE(survivor_sub.ok());

  const ftb::proto::ClientsReply before = ftb::testing::queryClients(agent.ipcEndpoint());
  std::vector<pid_t> pids;
  for (const auto& child : children) {
    const ftb::proto::ClientInfo* info = findByPid(before, child->pid());
    BOOST_REQUIRE_MESSAGE(info != nullptr, "child " << child->pid() << " is not registered");
    BOOST_REQUIRE_EQUAL(info->subscriptions_size(), 1);
    BOOST_CHECK_EQUAL(info->subscriptions(0).filter(), kChildFilter);
    BOOST_CHECK(info->peer().credentials_known());
    BOOST_CHECK_EQUAL(info->peer().pid(), static_cast<uint32_t>(child->pid()));
    pids.push_back(child->pid());
  }
  const ftb::proto::StatusReply status_before = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status_before.clients(), 4u);
  BOOST_CHECK_EQUAL(status_before.subscriptions(), 4u);

  for (auto& child : children) {
    const int status = child->crash();
    BOOST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto died = Clock::now();
  const bool freed = waitFor(
      [&] {
        const ftb::proto::ClientsReply now = ftb::testing::queryClients(agent.ipcEndpoint());
        for (pid_t pid : pids) {
          if (findByPid(now, pid) != nullptr) return false;
        }
        return true;
      },
      kFreedWithin);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - died);
  BOOST_REQUIRE_MESSAGE(freed, "the dead clients' sessions were still there after " << took.count()
                                                                                  << " ms");
  // A figure (a local process is freed at once: the agent watches it), not an assertion.
  BOOST_TEST_MESSAGE("sessions freed " << took.count() << " ms after the clients died");

  const ftb::proto::StatusReply status_after = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status_after.clients(), 1u);
  BOOST_CHECK_EQUAL(status_after.subscriptions(), 1u);
  BOOST_CHECK_EQUAL(status_after.counters().clients_expired() -
                        status_before.counters().clients_expired(),
                    3u);

  // The live client, heartbeating, was not expired along with them and still works.
  const ftb::proto::ClientsReply after = ftb::testing::queryClients(agent.ipcEndpoint());
  BOOST_REQUIRE(findByPid(after, getpid()) != nullptr);
  BOOST_REQUIRE(survivor->publish("STILL_HERE", "yes").ok());
  auto n = survivor->poll(*survivor_sub, 5s);
  BOOST_REQUIRE(n.ok() && n->has_value());
  BOOST_CHECK_EQUAL((*n)->event.payload, "yes");
  BOOST_CHECK_EQUAL(survivor->stats().reconnects, 0u);
}

BOOST_AUTO_TEST_CASE(killed_subscriber_during_traffic_costs_others_nothing) {
  AgentProcess agent(kAgentFlags);
  CrashingChild child(agent, Death::kSigkill);
  const pid_t child_pid = child.pid();

  auto pub = connectOrFail(agent.localEndpoint(), "FTB.CRASH.PUB", "pub");
  BOOST_REQUIRE(pub->declare({{"ALERT", ftb::Severity::kError}}).ok());
  auto watcher = connectOrFail(agent.localEndpoint(), "FTB.CRASH.WATCH", "watcher");
  auto watch = watcher->subscribe({.filter = kChildFilter, .polling = true});
  BOOST_REQUIRE(watch.ok());
  BOOST_REQUIRE(findByPid(ftb::testing::queryClients(agent.ipcEndpoint()), child_pid) != nullptr);

  const int status = child.crash();
  BOOST_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const auto died = Clock::now();

  // Events that match the dead client's subscription keep flowing to the others.
  constexpr int kEvents = 2000;
  for (int i = 0; i < kEvents; ++i) {
    auto id = pub->publish("ALERT", std::to_string(i));
    BOOST_REQUIRE_MESSAGE(id.ok(), id.status().toString());
  }
  BOOST_REQUIRE(pub->flush(10s).ok());
  for (int i = 0; i < kEvents; ++i) {
    auto n = watcher->poll(*watch, 5s);
    BOOST_REQUIRE(n.ok());
    BOOST_REQUIRE_MESSAGE(n->has_value(), "watcher got " << i << " of " << kEvents);
    BOOST_REQUIRE((*n)->kind == ftb::Notification::Kind::kEvent);
    BOOST_REQUIRE_EQUAL((*n)->event.payload, std::to_string(i));
  }

  const bool freed = waitFor(
      [&] {
        return findByPid(ftb::testing::queryClients(agent.ipcEndpoint()), child_pid) == nullptr;
      },
      kFreedWithin);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - died);
  BOOST_REQUIRE_MESSAGE(freed, "the killed client's session was still there after " << took.count()
                                                                                    << " ms");
  BOOST_TEST_MESSAGE("session freed " << took.count() << " ms after the client died");
  const ftb::proto::StatusReply status_after = ftb::testing::queryStatus(agent.ipcEndpoint());
  BOOST_CHECK_EQUAL(status_after.clients(), 2u);
  BOOST_CHECK_EQUAL(status_after.subscriptions(), 1u);
  // The published events and the agent's FTB_CLIENT_LOST for the killed client.
  BOOST_CHECK_EQUAL(status_after.counters().events_in(), static_cast<uint64_t>(kEvents) + 1);
}
