// Test support: the service manager's end of the sd_notify protocol. A unix
// datagram socket in a private directory; a daemon started with
// NOTIFY_SOCKET=<path()> sends its READY=1 / STATUS= / WATCHDOG=1 / STOPPING=1
// datagrams here, as it would to systemd.
//
//   NotifySocket notify;
//   setenv("NOTIFY_SOCKET", notify.path().c_str(), 1);  // in the child
//   auto m = notify.receive(5s);   // "READY=1\nSTATUS=serving on ..."
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "tests/support/agent_process.h"

namespace ftb::testing {

class NotifySocket {
 public:
  NotifySocket();  // binds; throws std::runtime_error when it cannot
  ~NotifySocket();
  const std::string& path() const { return path_; }

  // Next datagram, or nullopt when none arrived within `timeout`.
  std::optional<std::string> receive(std::chrono::milliseconds timeout);
  // Receives until a datagram holding the line `assignment` (e.g. "READY=1")
  // arrives; nullopt when none did within `timeout`. Skipped datagrams are lost.
  std::optional<std::string> receiveLine(const std::string& assignment,
                                         std::chrono::milliseconds timeout);

 private:
  TempDir dir_;
  std::string path_;
  int fd_ = -1;
};

// Starts `argv` (argv[0] a path) as systemd would start a Type=notify service:
// NOTIFY_SOCKET names `notify`; with a non-zero `watchdog`, WATCHDOG_USEC holds
// it and WATCHDOG_PID the child's own pid. Returns the child's pid; the caller
// reaps it.
pid_t spawnNotified(const std::vector<std::string>& argv, const NotifySocket& notify,
                    std::chrono::microseconds watchdog = std::chrono::microseconds(0));

// True when `datagram` (newline-separated assignments) holds the line `assignment`.
bool hasLine(const std::string& datagram, const std::string& assignment);

}  // namespace ftb::testing
