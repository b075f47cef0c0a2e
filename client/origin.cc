#include "client/origin.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "client/clock.h"

namespace ftb {
namespace {

uint64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::real().systemNow().time_since_epoch())
      .count();
}

proto::Origin makeOrigin() {
  proto::Origin origin;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  origin.set_host(host);
  origin.set_pid(static_cast<uint32_t>(getpid()));
  origin.set_process_start_ns(processStartNs("/proc/self").value_or(nowNs()));
  return origin;
}

// Bumped in the child of every fork(): a child is a different process. (Asking
// getpid() on every publish instead was a system call per event.)
std::atomic<uint64_t> fork_generation{1};

}  // namespace

// Field 22 of <proc_dir>/stat (clock ticks after boot) plus the boot time from
// /proc/stat. The comm field (2) may hold spaces and parentheses: the fields
// after it start after the last ')'.
std::optional<uint64_t> processStartNs(const std::string& proc_dir) {
  std::ifstream stat(proc_dir + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return std::nullopt;
  uint64_t start_ticks = 0;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  }
  std::ifstream boot("/proc/stat");
  uint64_t btime = 0;
  for (std::string key; boot >> key;) {
    if (key == "btime") {
      boot >> btime;
      break;
    }
  }
  if (btime == 0 || start_ticks == 0) return std::nullopt;
  const uint64_t hz = static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
  return btime * 1'000'000'000ULL + start_ticks * (1'000'000'000ULL / hz);
}

const proto::Origin& localOrigin() {
  static const int registered = pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); });
  (void)registered;
  static thread_local proto::Origin cached;
  static thread_local uint64_t cached_generation = 0;
  const uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (cached_generation != generation) {
    cached = makeOrigin();
    cached_generation = generation;
  }
  return cached;
}

uint32_t nextClientInstance() {
  static std::atomic<uint32_t> next{1};
  return next.fetch_add(1);
}

}  // namespace ftb
