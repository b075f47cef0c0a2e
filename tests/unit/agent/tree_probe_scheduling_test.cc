// The thread that sends and answers the tree's liveness PINGs runs under
// SCHED_RR where the process may (agent/tree_link.h), and where it may not the
// transport keeps normal scheduling instead of letting libzmq abort.
#define BOOST_TEST_MODULE tree_probe_scheduling
#include <boost/test/unit_test.hpp>

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "agent/tree_link.h"

using ftb::agent::LinkPing;
using ftb::agent::ZmqTreeTransport;
using namespace std::chrono_literals;

namespace {

const LinkPing kPing{40ms, 140ms};

// Threads of this process under SCHED_RR.
int realtimeThreads() {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    if (sched_getscheduler(std::stoi(entry->d_name)) == SCHED_RR) ++count;
  }
  closedir(tasks);
  return count;
}

// libzmq's I/O thread applies its policy itself once it runs.
bool awaitRealtimeThreads(int n) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (realtimeThreads() != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

bool mayUseRealtime() {
  rlimit limit{};
  return geteuid() == 0 || (getrlimit(RLIMIT_RTPRIO, &limit) == 0 && limit.rlim_cur >= 1);
}

}  // namespace

BOOST_AUTO_TEST_CASE(with_the_right_only_the_probe_thread_runs_under_sched_rr) {
  BOOST_REQUIRE_MESSAGE(mayUseRealtime(), "run as root or with RLIMIT_RTPRIO >= 1 (CI runs as root)");
  zmq::context_t data_context(1);
  ZmqTreeTransport transport(data_context, 16, kPing);
  auto listening = transport.listenForProbes("tcp://127.0.0.1:0", 1);
  BOOST_REQUIRE_MESSAGE(listening.ok(), listening.status().toString());
  BOOST_TEST(transport.realtimeProbes());
  BOOST_TEST(awaitRealtimeThreads(1), realtimeThreads() << " threads under SCHED_RR, want the probe's one");
  sched_param param{};
  BOOST_TEST(sched_getparam(0, &param) == 0);
  BOOST_TEST(sched_getscheduler(0) == SCHED_OTHER);  // the caller (the agent's loop) is left alone
}

BOOST_AUTO_TEST_CASE(priority_zero_keeps_normal_scheduling) {
  zmq::context_t data_context(1);
  ZmqTreeTransport transport(data_context, 16, kPing);
  BOOST_REQUIRE(transport.listenForProbes("tcp://127.0.0.1:0", 0).ok());
  BOOST_TEST(!transport.realtimeProbes());
  BOOST_TEST(realtimeThreads() == 0);
}

BOOST_AUTO_TEST_CASE(without_the_right_the_probe_listens_with_normal_scheduling) {
  BOOST_REQUIRE_MESSAGE(geteuid() == 0, "needs root to become an unprivileged user (CI runs as root)");
  const pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    // An unprivileged user without the rlimit: libzmq would abort if asked.
    const rlimit none{0, 0};
    if (setrlimit(RLIMIT_RTPRIO, &none) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    zmq::context_t data_context(1);
    ZmqTreeTransport transport(data_context, 16, kPing);
    const bool listening = transport.listenForProbes("tcp://127.0.0.1:0", 1).ok();
    _exit(listening && !transport.realtimeProbes() ? 0 : 1);
  }
  int status = 0;
  BOOST_REQUIRE(waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status), "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  BOOST_TEST((WIFEXITED(status) ? WEXITSTATUS(status) : -1) == 0);
}
