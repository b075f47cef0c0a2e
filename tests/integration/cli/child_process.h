// Test support: run a program (ftbctl) as a child process with its stdout and
// stderr captured, either to completion or in the background.
//
//   auto r = ftb::testing::runChild({ftbctl, "--agent", endpoint, "status"});
//   BOOST_CHECK_EQUAL(r.exit_code, 0);
//
//   ChildProcess watch({ftbctl, ..., "watch", "--count", "2"});
//   ... publish ...
//   ChildResult r = watch.wait();
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ftb::testing {

struct ChildResult {
  int exit_code = -1;  // 128 + signal when killed by one; -1 when wait() gave up
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};  // from start to exit
};

class ChildProcess {
 public:
  explicit ChildProcess(std::vector<std::string> argv);
  ~ChildProcess();  // SIGKILL and reap if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig);
  // False once the child has exited (it is reaped then; wait() still returns its output).
  bool running();
  // Collects output until the child exits, at most `timeout`; then SIGKILL (exit_code -1).
  ChildResult wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));

 private:
  void reaped(int status);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point ended_;
};

ChildResult runChild(std::vector<std::string> argv,
                     std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace ftb::testing
