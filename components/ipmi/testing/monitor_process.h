// Test support: the real ftb-ipmi binary as a child process, its output in a
// log file, and an SDK subscriber that records what it publishes.
//
//   EventCollector events(agent.ipcEndpoint());           // subscribe first
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

namespace ftb::ipmi::testing {

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

using EventPredicate = std::function<bool(const Event&)>;

// Matches event `name` whose payload starts with `node` and, when given, names `sensor`.
EventPredicate named(std::string name, std::string node, std::string sensor = "");

// A payload field ("" when absent or when the payload does not parse).
std::string field(const Event& event, const std::string& key);

class EventCollector {
 public:
  explicit EventCollector(const std::string& agent_endpoint,
                          const std::string& filter = "event_space=FTB.IPMI.*");

  // First event at index >= `from` matching `predicate`, waiting up to `timeout`.
  std::optional<Event> waitFor(const EventPredicate& predicate, std::chrono::milliseconds timeout,
                               std::size_t from = 0);
  // Index of the first event matching, as waitFor; for "what came after it".
  std::optional<std::size_t> waitForIndex(const EventPredicate& predicate,
                                          std::chrono::milliseconds timeout, std::size_t from = 0);
  // Everything received so far (after collecting what is queued).
  std::vector<Event> events();
  std::size_t count(const EventPredicate& predicate, std::size_t from = 0);
  std::size_t size() { return events().size(); }

 private:
  void drain(std::chrono::milliseconds wait);

  std::unique_ptr<Client> client_;
  SubscriptionId subscription_ = 0;
  std::vector<Event> events_;
};

}  // namespace ftb::ipmi::testing
