#include "components/ipmi/testing/monitor_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/support/spawn.h"

namespace ftb::ipmi::testing {

using ftb::testing::runfile;
using ftb::testing::spawn;
using ftb::testing::waitFor;

MonitorProcess::MonitorProcess(std::vector<std::string> args) {
  args.insert(args.begin(), runfile("components/ipmi/ftb-ipmi"));
  pid_ = spawn(std::move(args), dir_.path() + "/monitor.log");
}

MonitorProcess::~MonitorProcess() { terminate(); }

std::optional<int> MonitorProcess::waitExit(std::chrono::milliseconds timeout) {
  if (exit_status_ || pid_ <= 0) return exit_status_;
  int status = 0;
  if (waitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, timeout)) {
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }
  return exit_status_;
}

void MonitorProcess::terminate() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!waitExit(std::chrono::seconds(10))) {
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
}

int MonitorProcess::stop() {
  terminate();
  return exit_status_.value_or(-1);
}

std::string MonitorProcess::log() const {
  std::ifstream in(dir_.path() + "/monitor.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

EventPredicate named(std::string name, std::string node, std::string sensor) {
  return [=](const Event& e) {
    if (e.event_name != name) return false;
    if (e.payload.rfind(node + " ", 0) != 0) return false;
    return sensor.empty() || field(e, "sensor") == sensor;
  };
}


}  // namespace ftb::ipmi::testing
