// Test support: the real ftb-ipmi binary as a child process, its output in a
// log file, and an SDK subscriber that records what it publishes.
//
//   EventCollector events(agent.ipcEndpoint(), "event_space=FTB.IPMI.*");  // first
//   MonitorProcess monitor({"--bmc=n1=" + bmc.address(), ...});
//   auto e = events.waitFor(named("FTB_IPMI_FANFAIL", "n1"), 2s);
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/client.h"
#include "tests/support/agent_process.h"
#include "tests/support/event_collector.h"

namespace ftb::ipmi::testing {

using ftb::testing::EventCollector;
using ftb::testing::EventPredicate;
using ftb::testing::field;

class MonitorProcess {
 public:
  explicit MonitorProcess(std::vector<std::string> args);
  ~MonitorProcess();  // SIGTERM, then SIGKILL if it lingers

  // Its exit status if it exits within `timeout` (else nullopt; it keeps running).
  std::optional<int> waitExit(std::chrono::milliseconds timeout);
  void terminate();
  // SIGTERM and its exit status (0 for a clean shutdown).
  int stop();
  std::string log() const;
  pid_t pid() const { return pid_; }

 private:
  ftb::testing::TempDir dir_;
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
};

// Matches event `name` whose payload starts with `node` and, when given, names `sensor`.
EventPredicate named(std::string name, std::string node, std::string sensor = "");

}  // namespace ftb::ipmi::testing
