// The thread that sends and answers the tree's liveness PINGs runs under
// SCHED_RR where the process may (agent/transport/tree_link.h), and where it may not the
// transport keeps normal scheduling instead of letting libzmq abort.
#define BOOST_TEST_MODULE tree_probe_scheduling
#include <boost/test/unit_test.hpp>

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "agent/loop/poller.h"
#include "agent/transport/tree_link.h"

using ftb::agent::LinkPing;
using ftb::agent::ZmqTreeTransport;
using namespace std::chrono_literals;

namespace {

const LinkPing kPing{40ms, 140ms};

// The names of this process's threads under SCHED_RR.
std::vector<std::string> realtimeThreads() {
  std::vector<std::string> names;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return {"(cannot read /proc/self/task)"};
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    if (sched_getscheduler(std::stoi(entry->d_name)) != SCHED_RR) continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  closedir(tasks);
  return names;
}

long count(const std::vector<std::string>& names, const std::string& prefix) {
  return std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// libzmq's threads apply their policy themselves once they run: the probe
// context's I/O thread (one of the two I/O threads here, the data context
// has the other) becomes SCHED_RR.
bool awaitRealtimeIoThread() {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (count(realtimeThreads(), "ZMQbg/IO/") != 1) {
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

BOOST_AUTO_TEST_CASE(with_the_right_only_the_probe_threads_run_under_sched_rr) {
  BOOST_REQUIRE_MESSAGE(mayUseRealtime(), "run as root or with RLIMIT_RTPRIO >= 1 (CI runs as root)");
  ftb::ZmqContext data_context;
  auto poller = std::move(ftb::agent::Poller::create()).value();
  ZmqTreeTransport transport(data_context, *poller, 16, kPing);
  auto listening = transport.listenForProbes("tcp://127.0.0.1:0", 1);
  BOOST_REQUIRE_MESSAGE(listening.ok(), listening.status().toString());
  BOOST_TEST(transport.realtimeProbes());
  BOOST_TEST(awaitRealtimeIoThread(), "threads under SCHED_RR: " << joined(realtimeThreads()));
  // Only the probe context's own threads (its I/O thread, and its reaper,
  // which libzmq starts with the same policy); the caller and the data
  // context's I/O thread are left alone.
  const auto names = realtimeThreads();
  BOOST_TEST(count(names, "ZMQbg/") == static_cast<long>(names.size()), joined(names));
  BOOST_TEST(count(names, "ZMQbg/IO/") == 1, joined(names));
  BOOST_TEST(sched_getscheduler(0) == SCHED_OTHER);
}

BOOST_AUTO_TEST_CASE(priority_zero_keeps_normal_scheduling) {
  ftb::ZmqContext data_context;
  auto poller = std::move(ftb::agent::Poller::create()).value();
  ZmqTreeTransport transport(data_context, *poller, 16, kPing);
  BOOST_REQUIRE(transport.listenForProbes("tcp://127.0.0.1:0", 0).ok());
  BOOST_TEST(!transport.realtimeProbes());
  BOOST_TEST(realtimeThreads().empty(), joined(realtimeThreads()));
}

BOOST_AUTO_TEST_CASE(without_the_right_the_probe_listens_with_normal_scheduling) {
  BOOST_REQUIRE_MESSAGE(geteuid() == 0, "needs root to become an unprivileged user (CI runs as root)");
  const pid_t child = fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    // An unprivileged user without the rlimit: libzmq would abort if asked.
    const rlimit none{0, 0};
    if (setrlimit(RLIMIT_RTPRIO, &none) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    ftb::ZmqContext data_context;
    auto poller = std::move(ftb::agent::Poller::create()).value();
    ZmqTreeTransport transport(data_context, *poller, 16, kPing);
    const bool listening = transport.listenForProbes("tcp://127.0.0.1:0", 1).ok();
    _exit(listening && !transport.realtimeProbes() ? 0 : 1);
  }
  int status = 0;
  BOOST_REQUIRE(waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status), "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  BOOST_TEST((WIFEXITED(status) ? WEXITSTATUS(status) : -1) == 0);
}
