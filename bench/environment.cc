#include "bench/environment.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace ftb::bench {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kFaultBytes = 16 << 20;  // 4096 pages
constexpr int kForks = 5;
constexpr double kMinStealWindowS = 0.25;

double monotonicSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The "cpu" line of /proc/stat: {steal, all} in ticks; {0, 0} when unreadable.
std::array<uint64_t, 2> cpuTicks() {
  std::ifstream in("/proc/stat");
  std::string label;
  if (!(in >> label) || label != "cpu") return {0, 0};
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  uint64_t all = 0, steal = 0;
  for (int i = 0; i < 8; ++i) {
    uint64_t v = 0;
    if (!(in >> v)) return {0, 0};
    all += v;
    if (i == 7) steal = v;
  }
  return {steal, all};
}

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  return (in >> load) ? load : -1;
}

// The word in brackets: "always [madvise] never" -> "madvise".
std::string transparentHugePages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

double pageFaultUs() {
  void* p = mmap(nullptr, kFaultBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  madvise(p, kFaultBytes, MADV_NOHUGEPAGE);  // the 4 KiB page's cost, also where THP is "always"
  auto* bytes = static_cast<volatile uint8_t*>(p);
  const double t0 = monotonicSeconds();
  for (std::size_t i = 0; i < kFaultBytes; i += kPage) bytes[i] = 1;
  const double elapsed = monotonicSeconds() - t0;
  munmap(p, kFaultBytes);
  return elapsed / (kFaultBytes / kPage) * 1e6;
}

double forkExecMs() {
  std::vector<double> ms;
  for (int i = 0; i < kForks; ++i) {
    const double t0 = monotonicSeconds();
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
      execl("/bin/true", "true", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    ms.push_back((monotonicSeconds() - t0) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::string orUnknown(double value, const char* format) {
  if (value < 0) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

Environment measureEnvironment() {
  Environment e;
  e.measured_at = std::time(nullptr);
  e.cores = sysconf(_SC_NPROCESSORS_ONLN);
  e.load = loadAverage();
  e.transparent_huge_pages = transparentHugePages();
  // Steal over the whole measurement, the faults and forks included: an idle
  // vCPU has nothing to be stolen from, a busy one shows what the host takes.
  const auto before = cpuTicks();
  const double t0 = monotonicSeconds();
  e.page_fault_us = pageFaultUs();
  e.fork_exec_ms = forkExecMs();
  const double left = kMinStealWindowS - (monotonicSeconds() - t0);
  if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
  const auto after = cpuTicks();
  if (after[1] > before[1]) {
    e.steal_percent = 100.0 * static_cast<double>(after[0] - before[0]) / static_cast<double>(after[1] - before[1]);
  }
  return e;
}

std::string formatEnvironment(const Environment& e) {
  char when[32] = "?";
  tm utc{};
  if (e.measured_at > 0 && gmtime_r(&e.measured_at, &utc) != nullptr) {
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &utc);
  }
  std::ostringstream line;
  line << "environment: load " << orUnknown(e.load, "%.2f") << ", steal " << orUnknown(e.steal_percent, "%.1f")
       << " %, page fault " << orUnknown(e.page_fault_us, "%.1f") << " us, fork+exec "
       << orUnknown(e.fork_exec_ms, "%.1f") << " ms, THP "
       << (e.transparent_huge_pages.empty() ? "?" : e.transparent_huge_pages) << " (" << when << ", " << e.cores
       << (e.cores == 1 ? " core)" : " cores)");
  return line.str();
}

Environment printEnvironment() {
  Environment e = measureEnvironment();
  std::printf("%s\n", formatEnvironment(e).c_str());
  std::fflush(stdout);
  return e;
}

}  // namespace ftb::bench
