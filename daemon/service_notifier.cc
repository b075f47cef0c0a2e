#include "daemon/service_notifier.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <string>

#include <spdlog/spdlog.h>

namespace ftb::daemon {

ServiceNotifier::ServiceNotifier() {
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) names this process.
  if (sd_watchdog_enabled(0, &usec) > 0) watchdog_ = std::chrono::microseconds(usec);
}

void ServiceNotifier::send(std::string_view message) {
  const std::string text(message);
  // Returns 0 without NOTIFY_SOCKET; a failure to reach the manager is worth a log line only.
  if (int r = sd_notify(0, text.c_str()); r < 0) {
    spdlog::warn("cannot notify the service manager ({}): error {}", text.substr(0, text.find('\n')), -r);
  }
}

void ServiceNotifier::ready(std::string_view status) {
  send("READY=1\nSTATUS=" + std::string(status));
}

void ServiceNotifier::status(std::string_view status) { send("STATUS=" + std::string(status)); }

void ServiceNotifier::reloading(std::string_view status) {
  send("RELOADING=1\nSTATUS=" + std::string(status));
}

void ServiceNotifier::stopping(std::string_view status) {
  send("STOPPING=1\nSTATUS=" + std::string(status));
}

void ServiceNotifier::feedWatchdog(std::chrono::steady_clock::time_point now) {
  if (watchdog_.count() == 0 || now - last_ping_ < watchdog_ / 2) return;
  last_ping_ = now;
  send("WATCHDOG=1");
}

std::chrono::milliseconds ServiceNotifier::maxLoopSleep(std::chrono::milliseconds fallback) const {
  if (watchdog_.count() == 0) return fallback;
  return std::max(std::chrono::milliseconds(1),
                  std::min(fallback, std::chrono::duration_cast<std::chrono::milliseconds>(watchdog_ / 4)));
}

}  // namespace ftb::daemon
