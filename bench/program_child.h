// A benchmark program run as a child process (fork + exec), with its standard
// output read line by line: the FTB 0.5 benchmark programs are plain C
// executables that print "ready" and then "key=value" lines.
// Threading: one thread owns a ProgramChild.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "client/status.h"

namespace ftb::bench {

class ProgramChild {
 public:
  // Starts `argv[0]` with `argv` and the environment plus `env`; its stderr is
  // this process's. The child dies with this process (PR_SET_PDEATHSIG).
  static Result<ProgramChild> start(const std::vector<std::string>& argv,
                                    const std::map<std::string, std::string>& env);
  ProgramChild(ProgramChild&& other) noexcept;
  ProgramChild& operator=(ProgramChild&&) = delete;
  ~ProgramChild();  // kills a child that was not waited for

  // The next line of its output, without the newline; kDeadlineExceeded after
  // `timeout`, kUnavailable at end of output.
  Result<std::string> readLine(std::chrono::milliseconds timeout);
  // Reads to the end of its output and waits for its exit; every "key=value"
  // line (repeated keys keep every value, in order). kDeadlineExceeded (and the
  // child killed) after `timeout`; kInternal when it exits non-zero.
  Result<std::multimap<std::string, std::string>> finish(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }

 private:
  ProgramChild(std::string name, pid_t pid, int out_fd) : name_(std::move(name)), pid_(pid), out_fd_(out_fd) {}
  std::string name_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffered_;
};

// The first value of `key` as a number; kNotFound naming the key when absent.
Result<double> numberField(const std::multimap<std::string, std::string>& fields, const std::string& key);

}  // namespace ftb::bench
