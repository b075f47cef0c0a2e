// Test support: run a real ftb-agent binary in the background on a private IPC
// socket (under a fresh /tmp directory: Bazel's TEST_TMPDIR is too long for a
// Unix socket path) and a loopback TCP port chosen by the kernel.
//
//   ftb::testing::AgentProcess agent;          // starts, waits until it is ready
//   ClientOptions o{.agent_endpoint = agent.ipcEndpoint(), ...};
//   agent.kill();  agent.restart();            // SIGKILL / start again, same endpoints
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ftb::testing {

// Path of a binary built by Bazel, from the test's runfiles ("agent/ftb-agent").
std::string runfile(const std::string& workspace_relative);

// A private directory under /tmp, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class AgentProcess {
 public:
  // Extra flags are appended to the agent's command line; a --tcp-endpoint
  // among them replaces the default loopback one (tcpEndpoint() is then what it bound, if any).
  // Agents here form trees as in a lab, --tree-authentication=insecure-none,
  // unless the flags set --tree-authentication or --curve-key-file themselves.
  explicit AgentProcess(std::vector<std::string> extra_flags = {});
  ~AgentProcess();  // SIGTERM, then SIGKILL if it lingers

  std::string ipcEndpoint() const { return "ipc://" + dir_.path() + "/agent.sock"; }
  // The agent's own Unix stream socket (its --local-endpoint "auto" beside the IPC socket).
  std::string streamEndpoint() const { return "unix://" + dir_.path() + "/agent.stream"; }
  // The local endpoint this test run uses: streamEndpoint() when the test target
  // sets FTB_TEST_LOCAL_TRANSPORT=stream, else ipcEndpoint(). Suites that must
  // hold over both transports run twice (tests/integration/BUILD).
  std::string localEndpoint() const;
  // The TCP endpoint actually bound, e.g. "tcp://127.0.0.1:41234".
  const std::string& tcpEndpoint() const { return tcp_endpoint_; }
  // "127.0.0.1:port" of the metrics endpoint, when started with --metrics-listen.
  const std::string& metricsAddress() const { return metrics_address_; }
  pid_t pid() const { return pid_; }
  const std::string& dir() const { return dir_.path(); }

  void kill();       // SIGKILL and reap
  void terminate();  // SIGTERM and reap; returns once it has exited
  // Starts it again on the same IPC path (and the same TCP port, when free).
  void restart();

 private:
  void start();
  void stop(int signal);

  TempDir dir_;
  std::vector<std::string> extra_flags_;
  std::string tcp_endpoint_;
  std::string metrics_address_;
  int tcp_port_ = 0;
  pid_t pid_ = -1;
};

// Polls `condition` every millisecond until it holds or `timeout` passes.
// The default is what a loaded 2-core machine (load 4) may need for a few
// processes to do their work; a condition that holds returns at once.
template <typename Condition>
bool waitFor(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    struct timespec ts{0, 1'000'000};
    nanosleep(&ts, nullptr);
  }
  return true;
}

}  // namespace ftb::testing
