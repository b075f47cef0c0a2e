#include "metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace ftb::metrics {
namespace {

std::optional<std::string> readFile(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<uint64_t> number(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Open descriptors, without the one this count itself holds open.
std::optional<uint64_t> openFds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  const std::string own = std::to_string(::dirfd(dir));
  uint64_t n = 0;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name != "." && name != ".." && name != own) ++n;
  }
  ::closedir(dir);
  return n;
}

prometheus::MetricFamily one(const char* name, const char* help, prometheus::MetricType type,
                             double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) m.counter.value = value;
  else m.gauge.value = value;
  return {name, help, type, {m}};
}

}  // namespace

std::optional<ProcStat> parseProcStat(std::string_view text) {
  const auto paren = text.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  // After ") " come fields 3 (state), 4, 5, ...: fields[i] is field i + 3.
  std::vector<std::string_view> fields;
  std::size_t i = paren + 1;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  auto field = [&](std::size_t n) { return n - 3 < fields.size() ? number(fields[n - 3]) : std::nullopt; };
  const auto utime = field(14), stime = field(15), start = field(22), vsize = field(23), rss = field(24);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  return ProcStat{*utime, *stime, *start, *vsize, *rss};
}

std::optional<uint64_t> parseBootTime(std::string_view proc_stat) {
  for (std::size_t at = 0; at < proc_stat.size();) {
    std::size_t end = proc_stat.find('\n', at);
    if (end == std::string_view::npos) end = proc_stat.size();
    const std::string_view line = proc_stat.substr(at, end - at);
    if (line.substr(0, 6) == "btime ") return number(line.substr(6));
    at = end + 1;
  }
  return std::nullopt;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  const auto stat_text = readFile("/proc/self/stat");
  const auto stat = stat_text ? parseProcStat(*stat_text) : std::nullopt;
  if (stat) {
    out.push_back(one("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                      MetricType::Counter,
                      static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks));
    out.push_back(one("process_resident_memory_bytes", "Resident memory size in bytes.",
                      MetricType::Gauge, static_cast<double>(stat->rss_pages) * page));
    out.push_back(one("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                      MetricType::Gauge, static_cast<double>(stat->vsize_bytes)));
    const auto system_text = readFile("/proc/stat");
    if (const auto boot = system_text ? parseBootTime(*system_text) : std::nullopt) {
      out.push_back(one("process_start_time_seconds",
                        "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                        static_cast<double>(*boot) + static_cast<double>(stat->start_ticks) / ticks));
    }
  }
  if (const auto fds = openFds()) {
    out.push_back(one("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                      static_cast<double>(*fds)));
  }
  if (rlimit limit{}; ::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out.push_back(one("process_max_fds", "Maximum number of open file descriptors.",
                      MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  return out;
}

}  // namespace ftb::metrics
