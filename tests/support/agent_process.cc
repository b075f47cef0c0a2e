#include "tests/support/agent_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <time.h>

namespace ftb::testing {

std::string runfile(const std::string& workspace_relative) {
  for (const char* var : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    if (const char* root = std::getenv(var)) {
      const std::string path = std::string(root) + "/ftb/" + workspace_relative;
      if (std::filesystem::exists(path)) return path;
    }
  }
  // Run outside Bazel from the workspace root.
  const std::string path = "bazel-bin/" + workspace_relative;
  if (std::filesystem::exists(path)) return path;
  throw std::runtime_error("cannot find " + workspace_relative + " in runfiles");
}

TempDir::TempDir() {
  char templ[] = "/tmp/ftb-test-XXXXXX";
  if (mkdtemp(templ) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = templ;
}

TempDir::~TempDir() {
  // FTB_KEEP_TEST_DIRS=1 keeps every test directory (logs, sockets) for a post-mortem.
  if (const char* keep = std::getenv("FTB_KEEP_TEST_DIRS"); keep != nullptr && std::string(keep) == "1") {
    std::fprintf(stderr, "kept test directory %s\n", path_.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string AgentProcess::localEndpoint() const {
  const char* transport = std::getenv("FTB_TEST_LOCAL_TRANSPORT");
  if (transport == nullptr || std::string(transport).empty() || std::string(transport) == "ipc") {
    return ipcEndpoint();
  }
  if (std::string(transport) == "stream") return streamEndpoint();
  throw std::runtime_error(std::string("FTB_TEST_LOCAL_TRANSPORT=") + transport +
                           ": expected ipc or stream");
}

AgentProcess::AgentProcess(std::vector<std::string> extra_flags)
    : extra_flags_(std::move(extra_flags)) {
  start();
}

AgentProcess::~AgentProcess() {
  if (pid_ > 0) stop(SIGTERM);
}

void AgentProcess::start() {
  const std::string ready = dir_.path() + "/ready";
  std::filesystem::remove(ready);
  std::vector<std::string> args = {
      runfile("agent/ftb-agent"),
      "--ipc-endpoint=" + ipcEndpoint(),
      "--ready-file=" + ready,
      "--log-level=warn",
  };
  // The agent takes --tcp-endpoint once: a test's own (e.g. =none) replaces the default.
  const bool own_tcp = std::any_of(extra_flags_.begin(), extra_flags_.end(), [](const auto& f) {
    return f.rfind("--tcp-endpoint", 0) == 0;
  });
  if (!own_tcp) args.push_back("--tcp-endpoint=tcp://127.0.0.1:" + std::to_string(tcp_port_));
  const bool own_tree_trust = std::any_of(extra_flags_.begin(), extra_flags_.end(), [](const auto& f) {
    return f.rfind("--tree-authentication", 0) == 0 || f.rfind("--curve-key-file", 0) == 0;
  });
  if (!own_tree_trust) args.push_back("--tree-authentication=insecure-none");
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const bool up = waitFor([&] {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) throw std::runtime_error("ftb-agent exited at start");
    return std::filesystem::exists(ready);
  });
  if (!up) throw std::runtime_error("ftb-agent did not become ready");
  std::ifstream in(ready);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("tcp://", 0) == 0) {
      tcp_endpoint_ = line;
      tcp_port_ = std::stoi(line.substr(line.rfind(':') + 1));
    }
    if (line.rfind("http://", 0) == 0) {
      metrics_address_ = line.substr(7, line.find('/', 7) - 7);
    }
  }
}

void AgentProcess::stop(int signal) {
  if (pid_ <= 0) return;
  ::kill(pid_, signal);
  int status;
  const bool exited = waitFor([&] { return waitpid(pid_, &status, WNOHANG) == pid_; },
                              std::chrono::seconds(10));
  if (!exited) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

void AgentProcess::kill() { stop(SIGKILL); }
void AgentProcess::terminate() { stop(SIGTERM); }

void AgentProcess::restart() {
  if (pid_ > 0) stop(SIGTERM);
  start();
}

}  // namespace ftb::testing
