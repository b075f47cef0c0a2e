#include "tests/integration/cli/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace ftb::testing {

using Clock = std::chrono::steady_clock;

ChildProcess::ChildProcess(std::vector<std::string> argv) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  started_ = Clock::now();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

void ChildProcess::signal(int sig) {
  if (!exited_) ::kill(pid_, sig);
}

void ChildProcess::reaped(int status) {
  exited_ = true;
  ended_ = Clock::now();
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool ChildProcess::running() {
  if (exited_) return false;
  int status;
  if (waitpid(pid_, &status, WNOHANG) == pid_) reaped(status);
  return !exited_;
}

ChildResult ChildProcess::wait(std::chrono::milliseconds timeout) {
  ChildResult result;
  const auto deadline = Clock::now() + timeout;
  bool gave_up = false;
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      gave_up = true;
      break;
    }
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? out_fd_ : err_fd_;
      if (fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      } else {
        close(fd);
        fd = -1;
      }
    }
  }
  if (gave_up && !exited_) {
    ::kill(pid_, SIGKILL);
  }
  if (!exited_) {
    int status;
    waitpid(pid_, &status, 0);
    reaped(status);
  }
  result.exit_code = gave_up ? -1 : exit_code_;
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(ended_ - started_);
  return result;
}

ChildResult runChild(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  ChildProcess child(std::move(argv));
  return child.wait(timeout);
}

}  // namespace ftb::testing
