#include "components/mpi_bridge/config.h"

#include "components/mpi_bridge/schedule.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace ftb::mpi_bridge {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

Result<long> parseNonNegative(const char* name, const char* text) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0) {
    return invalidArgument(std::string(name) + "='" + text + "' is not a non-negative integer");
  }
  return v;
}

Result<double> parseSeconds(const char* name, const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (*end != '\0' || v < 0) {
    return invalidArgument(std::string(name) + "='" + text + "' is not a non-negative number");
  }
  return v;
}

// "1", "2-3,5": CPU numbers, ascending or not, each at most once.
Result<std::vector<int>> parseCpuList(const char* name, const std::string& text) {
  std::vector<int> cpus;
  auto bad = [&] { return invalidArgument(std::string(name) + "='" + text + "' is not a CPU list such as 1 or 2-3,5"); };
  for (const std::string& part : split(text, ',')) {
    const std::size_t dash = part.find('-');
    const std::string low = part.substr(0, dash), high = dash == std::string::npos ? low : part.substr(dash + 1);
    if (low.empty() || high.empty()) return bad();
    auto first = parseNonNegative(name, low.c_str());
    auto last = parseNonNegative(name, high.c_str());
    if (!first || !last || *last < *first || *last >= 4096) return bad();
    for (long c = *first; c <= *last; ++c) {
      if (std::find(cpus.begin(), cpus.end(), c) != cpus.end()) return bad();
      cpus.push_back(static_cast<int>(c));
    }
  }
  return cpus;
}

}  // namespace

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

bool isSafeName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

Result<Level> parseLevel(std::string_view text) {
  std::string t(text);
  if (!t.empty() && (t[0] == 'L' || t[0] == 'l')) t = t.substr(1);
  if (t.size() == 1 && t[0] >= '1' && t[0] <= '5') return static_cast<Level>(t[0] - '0');
  return invalidArgument("level '" + std::string(text) + "' is not one of L1, L2, L3, L4, L5");
}

std::string levelName(Level level) { return "L" + std::to_string(static_cast<int>(level)); }

Result<Config> configFromEnvironment() {
  Config c;
  if (const char* v = env("FTB_JOB_ID")) c.job_id = v;
  if (!isSafeName(c.job_id)) return invalidArgument("FTB_JOB_ID='" + c.job_id + "' must be [A-Za-z0-9_.-]+");
  if (const char* v = env("FTBCKPT_NODE_MAP")) c.node_map = v;
  if (const char* v = env("FTB_NODE_NAME")) {
    c.node_name = v;
  } else {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    c.node_name = host;
  }
  if (const char* v = env("FTBCKPT_DOMAIN_MAP")) {
    for (const auto& pair : split(v, ',')) {
      auto eq = pair.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size()) {
        return invalidArgument("FTBCKPT_DOMAIN_MAP entry '" + pair + "' is not node=domain");
      }
      c.domain_of_node[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  }
  for (auto [name, field] : {std::pair{"FTBCKPT_LEVEL", &c.level}, {"FTBCKPT_MIGRATE_LEVEL", &c.migrate_level}}) {
    if (const char* v = env(name)) {
      auto l = parseLevel(v);
      if (!l) return invalidArgument(std::string(name) + ": " + l.status().message());
      *field = *l;
    }
  }
  if (c.migrate_level == Level::kL1 || c.migrate_level == Level::kL5) {
    return invalidArgument("FTBCKPT_MIGRATE_LEVEL must be L2, L3 or L4: the moved ranks rebuild from other nodes");
  }
  if (const char* v = env("FTBCKPT_INTERVAL")) {
    auto n = parseNonNegative("FTBCKPT_INTERVAL", v);
    if (!n) return n.status();
    c.interval = *n;
  }
  if (const char* v = env("FTBCKPT_MTBF")) {
    auto s = parseSeconds("FTBCKPT_MTBF", v);
    if (!s) return s.status();
    c.mtbf_seconds = *s;
  }
  if (const char* v = env("FTBCKPT_SCHEDULE")) {
    auto spec = parseSchedule(v);
    if (!spec) return spec.status();
    if (c.interval > 0) {
      return invalidArgument("FTBCKPT_SCHEDULE and FTBCKPT_INTERVAL are both set: give the intervals in "
                             "FTBCKPT_SCHEDULE alone (e.g. L" + std::to_string(static_cast<int>(c.level)) + ":" +
                             std::to_string(c.interval) + ")");
    }
    if (spec->automatic && c.mtbf_seconds <= 0) {
      return invalidArgument("FTBCKPT_SCHEDULE=auto needs FTBCKPT_MTBF (seconds): the failure rate assumed "
                             "before any failure is observed");
    }
    c.schedule = v;
  }
  struct IntVar { const char* name; int* field; long min; };
  for (auto [name, field, min] : {IntVar{"FTBCKPT_GROUP_SIZE", &c.group_size, 2}, IntVar{"FTBCKPT_RS_M", &c.rs_m, 1},
                                  IntVar{"FTBCKPT_AGENT_TIMEOUT_MS", &c.agent_timeout_ms, 1},
                                  IntVar{"FTBCKPT_POLL_EVERY", &c.poll_every, 1},
                                  IntVar{"FTBCKPT_HANG_FLOOR_MS", &c.hang_floor_ms, 100},
                                  IntVar{"FTBCKPT_LOG_MB", &c.log_mb, 1}}) {
    if (const char* v = env(name)) {
      auto n = parseNonNegative(name, v);
      if (!n) return n.status();
      if (*n < min) return invalidArgument(std::string(name) + "=" + v + " must be at least " + std::to_string(min));
      *field = static_cast<int>(*n);
    }
  }
  if (const char* v = env("FTBCKPT_FLUSH_DIR")) c.flush_dir = v;
  if (const char* v = env("FTBCKPT_FLUSH_MBPS")) {
    auto s = parseSeconds("FTBCKPT_FLUSH_MBPS", v);
    if (!s) return s.status();
    c.flush_mbps = *s;
  }
  if (const char* v = env("FTBCKPT_AGENT")) c.agent = std::string(v) != "0";
  if (const char* v = env("FTBCKPT_ASYNC")) c.async = std::string(v) != "0";
  if (const char* v = env("FTBCKPT_HUGE_PAGES")) c.huge_pages = std::string(v) != "0";
  if (const char* v = env("FTBCKPT_HANG_WATCH")) c.hang_watch = std::string(v) != "0";
  if (const char* v = env("FTBCKPT_LOCAL_ROLLBACK")) c.local_rollback = std::string(v) != "0";
  if (const char* v = env("FTBCKPT_HANG_FACTOR")) {
    auto f = parseSeconds("FTBCKPT_HANG_FACTOR", v);
    if (!f) return f.status();
    if (*f < 1) return invalidArgument(std::string("FTBCKPT_HANG_FACTOR=") + v + " must be at least 1");
    c.hang_factor = *f;
  }
  if (const char* v = env("FTBCKPT_FAULT")) {
    const char* once = env("FTBCKPT_FAULT_ONCE");
    auto fault = parseFaultInjection(v, once ? once : "");
    if (!fault) return fault.status();
    c.fault = std::move(*fault);
  }
  if (const char* v = env("FTBCKPT_ENCODER")) {
    const std::string encoder = v;
    if (encoder != "rank" && encoder != "node") {
      return invalidArgument("FTBCKPT_ENCODER=" + encoder + ": 'rank' (each rank encodes) or 'node' (a dedicated "
                             "encoder process per node)");
    }
    c.node_encoder = encoder == "node";
  }
  if (const char* v = env("FTBCKPT_ENCODER_CPUS")) {
    auto cpus = parseCpuList("FTBCKPT_ENCODER_CPUS", v);
    if (!cpus) return cpus.status();
    c.encoder_cpus = std::move(*cpus);
  }
  if (c.async && c.node_encoder) {
    return invalidArgument("FTBCKPT_ASYNC=1 and FTBCKPT_ENCODER=node exclude each other: the node's encoder "
                           "already takes the group part off the ranks");
  }
  if (const char* v = env("FTB_CORR_ID")) c.corr_id = v;
  return c;
}

Result<std::string> nodeOfRank(const Config& config, int rank) {
  std::string node = config.node_name;
  if (!config.node_map.empty()) {
    auto nodes = split(config.node_map, ',');
    if (rank < 0 || rank >= static_cast<int>(nodes.size())) {
      return invalidArgument("FTBCKPT_NODE_MAP names " + std::to_string(nodes.size()) +
                             " nodes but rank " + std::to_string(rank) + " has none");
    }
    node = nodes[rank];
  }
  if (!isSafeName(node)) return invalidArgument("node name '" + node + "' must be [A-Za-z0-9_.-]+");
  return node;
}

}  // namespace ftb::mpi_bridge
