// ServiceNotifier: tells the service manager how a daemon is doing, over the
// sd_notify protocol (libsystemd). Used by ftb-agent and the component daemons
// under systemd units of Type=notify (deploy/*.service).
//
//   ServiceNotifier notifier;               // reads NOTIFY_SOCKET / WATCHDOG_USEC once
//   notifier.ready("serving on ...");       // once clients are accepted
//   while (running) { ...; notifier.feedWatchdog(now); }   // each loop turn
//   notifier.stopping("shutting down");
//
// Without $NOTIFY_SOCKET (not started by systemd) every call does nothing.
// Threading: one thread (the daemon's main loop) makes all calls.
#pragma once

#include <chrono>
#include <string_view>

namespace ftb::daemon {

class ServiceNotifier {
 public:
  ServiceNotifier();

  // READY=1 with a STATUS= line: the daemon now serves.
  void ready(std::string_view status);
  // STATUS= only: a one-line human-readable state (`systemctl status` shows it).
  void status(std::string_view status);
  // RELOADING=1 before re-reading the configuration; READY=1 again after.
  void reloading(std::string_view status);
  // STOPPING=1: shutdown has begun.
  void stopping(std::string_view status);

  // Sends WATCHDOG=1 when half the watchdog interval has passed since the last
  // ping. Call it from the loop that does the work, so that a stalled loop
  // stops the pings and systemd restarts the daemon.
  void feedWatchdog(std::chrono::steady_clock::time_point now);

  // The service manager's watchdog interval (WATCHDOG_USEC), zero when none.
  std::chrono::microseconds watchdogInterval() const { return watchdog_; }
  // How long the loop may sleep between feedWatchdog calls: a quarter of the
  // interval, or `fallback` when there is no watchdog.
  std::chrono::milliseconds maxLoopSleep(std::chrono::milliseconds fallback) const;

 private:
  void send(std::string_view message);

  std::chrono::microseconds watchdog_{0};
  std::chrono::steady_clock::time_point last_ping_{};
};

}  // namespace ftb::daemon
