#include "tests/integration/nobody_child.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace ftb::testing {
namespace {

std::string readAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

void writeAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

NobodyChild::NobodyChild(std::function<std::string(const std::string&)> body) {
  int in[2], out[2];
  // Close-on-exec: an agent the test starts later must not hold the child's
  // input open (the child reads it to the end).
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    close(in[1]);
    close(out[0]);
    const std::string input = readAll(in[0]);
    std::string report;
    if (setgroups(0, nullptr) != 0 || setgid(kNobodyUid) != 0 || setuid(kNobodyUid) != 0) {
      report = "cannot become uid 65534\n";
    } else {
      report = body(input);
    }
    writeAll(out[1], report);
    _exit(0);
  }
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
}

NobodyChild::~NobodyChild() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string NobodyChild::run(const std::string& input) {
  writeAll(to_child_, input);
  close(to_child_);
  to_child_ = -1;
  std::string report = readAll(from_child_);
  close(from_child_);
  from_child_ = -1;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    report += "exited with status " + std::to_string(status) + "\n";
  }
  return report;
}

}  // namespace ftb::testing
