// What the ftb benchmarks share: a real ftb-agent process on a private IPC
// socket, forked client processes that talk to the orchestrator over a pipe,
// CPU accounting from /proc, and latency percentiles.
//
//   auto agent = AgentRunner::start(findAgentBinary("", argv[0]), {});
//   ChildProcess sub = ChildProcess::spawn("subscriber", [&](Channel& ch) { ...; return 0; });
//   Ready ready;
//   if (!sub.channel().recv(&ready, 10s)) ...
//
// Fork rule: spawn every child before this process creates an ftb::Client.
// A ZeroMQ context and the SDK's threads do not survive fork(); the
// orchestrator therefore never connects itself, every client lives in a child.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "client/status.h"

namespace ftb::bench {

// CLOCK_MONOTONIC in nanoseconds: one clock for every process on the machine,
// so a child's timestamps compare with the orchestrator's.
uint64_t nowNs();

// The agent binary to run: `flag` when set; else the one Bazel put in this
// binary's runfiles (bazel run); else bazel-bin/agent/ftb-agent under the
// current directory or $BUILD_WORKSPACE_DIRECTORY. kNotFound names every place tried.
Result<std::string> findAgentBinary(const std::string& flag, const char* argv0);
// A program built by Bazel, by its workspace path ("bench/ftb05/ftb05_pingpong"):
// from this binary's runfiles, else under bazel-bin. kNotFound names every place tried.
Result<std::string> findBuiltProgram(const std::string& path, const char* argv0);

// A real ftb-agent in the background, on ipc://<fresh /tmp dir>/agent.sock and a
// loopback TCP port chosen by the kernel. Stopped (SIGTERM, then SIGKILL) and its
// directory removed on destruction.
class AgentRunner {
 public:
  // Waits until the agent has written its ready file. kUnavailable if it exits
  // or is not ready within `timeout`. With `log_to_file` its output goes to
  // logPath() instead of this process's stdout/stderr (many agents at once).
  static Result<std::unique_ptr<AgentRunner>> start(
      const std::string& binary, const std::vector<std::string>& extra_flags,
      std::chrono::milliseconds timeout = std::chrono::seconds(10), bool log_to_file = false);
  ~AgentRunner();
  AgentRunner(const AgentRunner&) = delete;
  AgentRunner& operator=(const AgentRunner&) = delete;

  std::string ipcEndpoint() const { return "ipc://" + dir_ + "/agent.sock"; }
  // The agent's own Unix stream socket (--local-endpoint auto: beside the IPC socket).
  std::string streamEndpoint() const { return "unix://" + dir_ + "/agent.stream"; }
  // The loopback TCP endpoint it bound (from its ready file): its tree address.
  const std::string& tcpEndpoint() const { return tcp_endpoint_; }
  pid_t pid() const { return pid_; }
  std::string logPath() const { return dir_ + "/agent.log"; }
  // SIGKILL and reap: an agent dying without a word to its neighbours.
  void kill();

 private:
  AgentRunner() = default;
  std::string dir_;
  std::string tcp_endpoint_;
  pid_t pid_ = -1;
};

// What a whole process (all its threads) has used so far.
struct ProcessUsage {
  double cpu_seconds = 0;             // user + system
  uint64_t voluntary_switches = 0;    // a thread blocked: each one needs a wake-up later
  uint64_t involuntary_switches = 0;  // a thread was preempted
};
ProcessUsage operator-(const ProcessUsage& a, const ProcessUsage& b);
ProcessUsage operator+(const ProcessUsage& a, const ProcessUsage& b);
// Another process, from /proc/<pid>/stat (10 ms ticks) and /proc/<pid>/task/*/status.
// All zero when it cannot be read.
ProcessUsage processUsage(pid_t pid);
// The calling process, from getrusage (microsecond resolution).
ProcessUsage selfUsage();
// Another process's peak resident set so far (VmHWM in /proc/<pid>/status), in
// bytes; 0 when it cannot be read.
uint64_t peakRssBytes(pid_t pid);

// One end of a bidirectional pipe between the orchestrator and a child.
// Carries plain structs: both ends know which message comes next.
class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  template <typename T>
  bool send(const T& message) {
    static_assert(std::is_trivially_copyable_v<T>);
    return writeAll(&message, sizeof(T));
  }
  // False when the other end closed (a child that failed) or `timeout` passed.
  template <typename T>
  bool recv(T* message, std::chrono::milliseconds timeout) {
    static_assert(std::is_trivially_copyable_v<T>);
    return readAll(message, sizeof(T), timeout);
  }

 private:
  bool writeAll(const void* data, std::size_t size);
  bool readAll(void* data, std::size_t size, std::chrono::milliseconds timeout);
  int fd_;
};

// A forked child process running `body`; its return value is the exit status.
// The child dies with the orchestrator (PR_SET_PDEATHSIG), and exceptions from
// `body` are printed and turned into exit status 70.
class ChildProcess {
 public:
  static ChildProcess spawn(std::string name, const std::function<int(Channel&)>& body);
  ChildProcess(ChildProcess&& other) noexcept
      : name_(std::move(other.name_)), pid_(other.pid_), channel_(std::move(other.channel_)) {
    other.pid_ = -1;
  }
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();  // kills a child that was not waited for

  Channel& channel() { return *channel_; }
  const std::string& name() const { return name_; }
  // Waits for the child to exit, SIGKILLs it after `timeout`; its exit status,
  // or 128 + signal.
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  ChildProcess(std::string name, pid_t pid, int fd)
      : name_(std::move(name)), pid_(pid), channel_(std::make_unique<Channel>(fd)) {}
  std::string name_;
  pid_t pid_ = -1;
  std::unique_ptr<Channel> channel_;
};

// Order statistics of a set of durations, in microseconds (nearest rank).
struct LatencySummary {
  uint64_t count = 0;
  double mean_us = 0;
  double min_us = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double max_us = 0;
};
LatencySummary summarize(std::vector<uint64_t> durations_ns);

}  // namespace ftb::bench
