// The standard process_* metrics of Prometheus client libraries, read from
// /proc/self at each scrape (prometheus-cpp 1.0 has no process collector):
//
//   process_cpu_seconds_total       user + system CPU time
//   process_resident_memory_bytes   resident set size
//   process_virtual_memory_bytes    virtual memory size
//   process_start_time_seconds      start time, seconds since the Unix epoch
//   process_open_fds                open file descriptors
//   process_max_fds                 the soft RLIMIT_NOFILE
//
// A file that cannot be read leaves its metrics out of that scrape (the scrape
// itself still succeeds); nothing here throws.
// Threading: Collect() may run on any thread; it keeps no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace ftb::metrics {

// The fields of /proc/<pid>/stat the collector uses, in the kernel's units.
struct ProcStat {
  uint64_t utime_ticks = 0;      // field 14
  uint64_t stime_ticks = 0;      // field 15
  uint64_t start_ticks = 0;      // field 22: clock ticks after boot
  uint64_t vsize_bytes = 0;      // field 23
  uint64_t rss_pages = 0;        // field 24
};

// Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and
// may itself hold spaces and ')': fields are counted after the last ')'.
std::optional<ProcStat> parseProcStat(std::string_view text);

// The "btime" line of /proc/stat: the boot time, seconds since the epoch.
std::optional<uint64_t> parseBootTime(std::string_view proc_stat);

class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace ftb::metrics
