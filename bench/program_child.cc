#include "bench/program_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ftb::bench {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

Result<ProgramChild> ProgramChild::start(const std::vector<std::string>& argv,
                                         const std::map<std::string, std::string>& env) {
  if (argv.empty()) return invalidArgument("no program to start");
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return internalError(std::string("pipe2: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return internalError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out[1], STDOUT_FILENO);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  return ProgramChild(argv[0], pid, out[0]);
}

ProgramChild::ProgramChild(ProgramChild&& other) noexcept
    : name_(std::move(other.name_)), pid_(other.pid_), out_fd_(other.out_fd_),
      buffered_(std::move(other.buffered_)) {
  other.pid_ = -1;
  other.out_fd_ = -1;
}

ProgramChild::~ProgramChild() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
}

Result<std::string> ProgramChild::readLine(milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  for (;;) {
    if (const auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
    if (left.count() <= 0) return deadlineExceeded(name_ + " printed no complete line in time");
    pollfd p{out_fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above decides
    char chunk[65536];
    const ssize_t n = read(out_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return unavailable(name_ + " closed its output");
    buffered_.append(chunk, static_cast<std::size_t>(n));
  }
}

Result<std::multimap<std::string, std::string>> ProgramChild::finish(milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  std::multimap<std::string, std::string> fields;
  for (;;) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
    Result<std::string> line = readLine(std::max(left, milliseconds(1)));
    if (!line.ok()) {
      if (line.status().code() != Code::kUnavailable) {
        kill(pid_, SIGKILL);
        return line.status();
      }
      break;  // end of output
    }
    if (const auto eq = line->find('='); eq != std::string::npos) {
      fields.emplace(line->substr(0, eq), line->substr(eq + 1));
    }
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return internalError(name_ + " ended with status " + std::to_string(status));
  }
  return fields;
}

Result<double> numberField(const std::multimap<std::string, std::string>& fields, const std::string& key) {
  const auto it = fields.find(key);
  if (it == fields.end()) return notFound("no " + key + "= line");
  return std::strtod(it->second.c_str(), nullptr);
}

}  // namespace ftb::bench
