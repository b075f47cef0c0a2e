#include "bench/bench_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ftb::bench {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

void sleepMs(int ms) { std::this_thread::sleep_for(milliseconds(ms)); }

// Waits for `pid` to exit for up to `timeout`; true when it was reaped.
bool reapWithin(pid_t pid, milliseconds timeout, int* status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    sleepMs(1);
  }
}

int exitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

uint64_t nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

Result<std::string> findAgentBinary(const std::string& flag, const char* argv0) {
  if (!flag.empty()) {
    if (access(flag.c_str(), X_OK) == 0) return flag;
    return notFound("--agent-binary " + flag + " is not an executable file");
  }
  return findBuiltProgram("agent/ftb-agent", argv0);
}

Result<std::string> findBuiltProgram(const std::string& path, const char* argv0) {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("RUNFILES_DIR")) {
    candidates.push_back(std::string(dir) + "/ftb/" + path);
  }
  if (argv0 != nullptr) candidates.push_back(std::string(argv0) + ".runfiles/ftb/" + path);
  // `bazel run` starts us inside our runfiles tree (…/ftb_bench.runfiles/ftb).
  candidates.push_back(path);
  candidates.push_back("bazel-bin/" + path);
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    candidates.push_back(std::string(ws) + "/bazel-bin/" + path);
  }
  std::string tried;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec) && access(c.c_str(), X_OK) == 0) return c;
    tried += (tried.empty() ? "" : ", ") + c;
  }
  return notFound("no " + path + " found (tried " + tried + "); build //" +
                  path.substr(0, path.rfind('/')) + ":" + path.substr(path.rfind('/') + 1));
}

Result<std::unique_ptr<AgentRunner>> AgentRunner::start(const std::string& binary,
                                                         const std::vector<std::string>& extra_flags,
                                                         milliseconds timeout,
                                                         bool log_to_file) {
  std::unique_ptr<AgentRunner> runner(new AgentRunner());
  // Under /tmp and short: a Unix socket path must fit in 108 bytes.
  char templ[] = "/tmp/ftb-bench-XXXXXX";
  if (mkdtemp(templ) == nullptr) return internalError("mkdtemp under /tmp failed");
  runner->dir_ = templ;
  const std::string ready = runner->dir_ + "/ready";
  std::vector<std::string> args = {
      binary,
      "--ipc-endpoint=" + runner->ipcEndpoint(),
      "--tcp-endpoint=tcp://127.0.0.1:0",
      "--ready-file=" + ready,
      "--log-level=warn",
  };
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  // Built before fork: the child of a process with SDK threads may not allocate.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string exec_failed = "cannot run " + binary + "\n";
  const int log_fd =
      log_to_file ? open(runner->logPath().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  if (log_to_file && log_fd < 0) return internalError("cannot create " + runner->logPath());
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return internalError("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (log_fd >= 0) dup2(log_fd, STDOUT_FILENO), dup2(log_fd, STDERR_FILENO);
    execv(argv[0], argv.data());
    (void)!write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  runner->pid_ = pid;
  if (log_fd >= 0) close(log_fd);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!fs::exists(ready)) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      runner->pid_ = -1;
      return unavailable(binary + " exited with status " + std::to_string(exitCode(status)) +
                         " before it was ready (see its message " +
                         (log_to_file ? "in " + runner->logPath() : std::string("above")) + ")");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return unavailable(binary + " was not ready within " + std::to_string(timeout.count()) +
                         " ms");
    }
    sleepMs(1);
  }
  std::ifstream in(ready);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("tcp://", 0) == 0) runner->tcp_endpoint_ = line;
  }
  return runner;
}

void AgentRunner::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

AgentRunner::~AgentRunner() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status;
    if (!reapWithin(pid_, std::chrono::seconds(5), &status)) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
  }
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

ProcessUsage operator-(const ProcessUsage& a, const ProcessUsage& b) {
  return {a.cpu_seconds - b.cpu_seconds, a.voluntary_switches - b.voluntary_switches,
          a.involuntary_switches - b.involuntary_switches};
}

ProcessUsage operator+(const ProcessUsage& a, const ProcessUsage& b) {
  return {a.cpu_seconds + b.cpu_seconds, a.voluntary_switches + b.voluntary_switches,
          a.involuntary_switches + b.involuntary_switches};
}

ProcessUsage processUsage(pid_t pid) {
  ProcessUsage u;
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream in(dir + "/stat");
  std::string line;
  if (!std::getline(in, line)) return u;
  // The command name (field 2) may hold spaces; fields after ')' start at 3.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return u;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  u.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  // Context switches are counted per thread.
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(dir + "/task", ec)) {
    std::ifstream status(task.path() / "status");
    for (std::string l; std::getline(status, l);) {
      if (l.rfind("voluntary_ctxt_switches:", 0) == 0) {
        u.voluntary_switches += std::stoull(l.substr(l.find(':') + 1));
      } else if (l.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
        u.involuntary_switches += std::stoull(l.substr(l.find(':') + 1));
      }
    }
  }
  return u;
}

uint64_t peakRssBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string l; std::getline(status, l);) {
    if (l.rfind("VmHWM:", 0) == 0) return std::stoull(l.substr(l.find(':') + 1)) * 1024;  // "N kB"
  }
  return 0;
}

ProcessUsage selfUsage() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);  // the sum over all threads of this process
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return {seconds(r.ru_utime) + seconds(r.ru_stime), static_cast<uint64_t>(r.ru_nvcsw),
          static_cast<uint64_t>(r.ru_nivcsw)};
}

// ---------------------------------------------------------------- Channel

Channel::~Channel() {
  if (fd_ >= 0) close(fd_);
}

bool Channel::writeAll(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd_, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool Channel::readAll(void* data, std::size_t size, milliseconds timeout) {
  char* p = static_cast<char*>(data);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (size > 0) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return false;
    pollfd item{fd_, POLLIN, 0};
    const int ready = ::poll(&item, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::read(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // the other end is gone
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// ---------------------------------------------------------------- ChildProcess

ChildProcess ChildProcess::spawn(std::string name, const std::function<int(Channel&)>& body) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error("socketpair failed");
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    close(fds[0]);
    int code = 70;
    {
      Channel channel(fds[1]);
      try {
        code = body(channel);
      } catch (const std::exception& e) {
        std::cerr << "ftb_bench " << name << ": " << e.what() << "\n";
      }
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(code);  // not exit(): the orchestrator's atexit handlers and statics are not ours
  }
  close(fds[1]);
  return ChildProcess(std::move(name), pid, fds[0]);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status;
    waitpid(pid_, &status, 0);
  }
}

int ChildProcess::wait(milliseconds timeout) {
  if (pid_ <= 0) return -1;
  int status = 0;
  if (!reapWithin(pid_, timeout, &status)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  return exitCode(status);
}

// ---------------------------------------------------------------- percentiles

LatencySummary summarize(std::vector<uint64_t> ns) {
  LatencySummary s;
  if (ns.empty()) return s;
  std::sort(ns.begin(), ns.end());
  auto rank = [&](double q) {
    const auto index = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ns.size())));
    return static_cast<double>(ns[std::clamp<std::size_t>(index, 1, ns.size()) - 1]) / 1000.0;
  };
  s.count = ns.size();
  s.mean_us = static_cast<double>(std::accumulate(ns.begin(), ns.end(), 0.0)) /
              static_cast<double>(ns.size()) / 1000.0;
  s.min_us = static_cast<double>(ns.front()) / 1000.0;
  s.p50_us = rank(0.50);
  s.p90_us = rank(0.90);
  s.p99_us = rank(0.99);
  s.max_us = static_cast<double>(ns.back()) / 1000.0;
  return s;
}

}  // namespace ftb::bench
