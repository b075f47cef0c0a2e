// Logs at most `per_second` messages per key each second and says how many it
// held back, so a peer sending garbage in a loop cannot flood the log.
// Threading: one thread (the agent's event loop).
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

#include <spdlog/spdlog.h>

namespace ftb::agent {

class RateLimitedLog {
 public:
  explicit RateLimitedLog(int per_second = 5) : per_second_(per_second) {}

  template <typename... Args>
  void warn(const std::string& key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
    if (!allow(key)) return;
    spdlog::warn(fmt, std::forward<Args>(args)...);
  }

 private:
  bool allow(const std::string& key);

  struct Window {
    std::chrono::steady_clock::time_point start;
    int logged = 0;
    uint64_t suppressed = 0;
  };
  int per_second_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace ftb::agent
