#include "components/mpi_bridge/schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ftb::mpi_bridge {
namespace {

// Daly's higher-order estimate of the optimum interval between checkpoints of
// cost c for a mean time between failures m (Young's √(2cm) to first order).
double dalyInterval(double c, double m) {
  if (c <= 0 || m <= 0) return 0;
  if (c >= 2 * m) return m;
  const double x = c / (2 * m);
  return std::sqrt(2 * c * m) * (1 + std::sqrt(x) / 3 + x / 9) - c;
}

std::string format(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  return buf;
}

}  // namespace

FailureScope scopeOf(Level level) {
  switch (level) {
    case Level::kL1: return FailureScope::kProcess;
    case Level::kL5: return FailureScope::kJob;
    default: return FailureScope::kNode;
  }
}

std::string scopeName(FailureScope scope) {
  switch (scope) {
    case FailureScope::kProcess: return "process";
    case FailureScope::kNode: return "node";
    case FailureScope::kJob: return "job";
  }
  return "?";
}

Result<ScheduleSpec> parseSchedule(std::string_view text) {
  ScheduleSpec spec;
  const std::string t(text);
  if (t == "auto" || t.rfind("auto:", 0) == 0) {
    spec.automatic = true;
    if (t.size() > 5) {
      for (const auto& part : split(t.substr(5), ',')) {
        auto level = parseLevel(part);
        if (!level) return invalidArgument("FTBCKPT_SCHEDULE '" + t + "': " + level.status().message());
        if (std::find(spec.auto_levels.begin(), spec.auto_levels.end(), *level) != spec.auto_levels.end()) {
          return invalidArgument("FTBCKPT_SCHEDULE '" + t + "' names " + levelName(*level) + " twice");
        }
        spec.auto_levels.push_back(*level);
      }
      std::sort(spec.auto_levels.begin(), spec.auto_levels.end());
    }
    return spec;
  }
  for (const auto& part : split(t, ',')) {
    const auto colon = part.find(':');
    if (colon == std::string::npos) {
      return invalidArgument("FTBCKPT_SCHEDULE element '" + part + "' is not LEVEL:ITERATIONS or LEVEL:SECONDSs");
    }
    auto level = parseLevel(part.substr(0, colon));
    if (!level) return invalidArgument("FTBCKPT_SCHEDULE element '" + part + "': " + level.status().message());
    std::string every = part.substr(colon + 1);
    LevelInterval interval{*level, 0, 0};
    char* end = nullptr;
    if (!every.empty() && every.back() == 's') {
      every.pop_back();
      interval.seconds = std::strtod(every.c_str(), &end);
    } else {
      interval.iterations = std::strtol(every.c_str(), &end, 10);
    }
    if (every.empty() || *end != '\0' || interval.seconds < 0 || interval.iterations < 0 ||
        (interval.seconds == 0 && interval.iterations == 0)) {
      return invalidArgument("FTBCKPT_SCHEDULE element '" + part +
                             "' needs a positive interval: iterations (L3:50) or seconds (L3:30s)");
    }
    for (const auto& other : spec.levels) {
      if (other.level == *level) {
        return invalidArgument("FTBCKPT_SCHEDULE '" + t + "' names " + levelName(*level) + " twice");
      }
    }
    spec.levels.push_back(interval);
  }
  if (spec.levels.empty()) return invalidArgument("FTBCKPT_SCHEDULE is empty");
  std::sort(spec.levels.begin(), spec.levels.end(),
            [](const LevelInterval& a, const LevelInterval& b) { return a.level < b.level; });
  return spec;
}

CheckpointSchedule::CheckpointSchedule(ScheduleSpec spec, double prior_mtbf_seconds, double start_seconds)
    : spec_(std::move(spec)), prior_mtbf_(prior_mtbf_seconds), start_(start_seconds) {
  for (auto& s : levels_) s.last_time = start_seconds;
  for (const auto& interval : spec_.levels) {
    state(interval.level).scheduled = true;
    state(interval.level).interval = interval;
  }
  for (Level level : spec_.auto_levels) state(level).scheduled = true;
}

double CheckpointSchedule::mtbf(FailureScope scope, double now) const {
  long failures = 0;
  for (int s = static_cast<int>(scope); s < static_cast<int>(failures_.size()); ++s) failures += failures_[s];
  // A prior of one failure per prior_mtbf_, updated by the time passed and the failures seen.
  return (prior_mtbf_ + std::max(0.0, now - start_)) / static_cast<double>(1 + failures);
}

double CheckpointSchedule::intervalSeconds(Level level, double now) const {
  const LevelState& s = state(level);
  if (!spec_.automatic) return s.interval.seconds;
  return dalyInterval(s.cost, mtbf(scopeOf(level), now));
}

std::optional<Level> CheckpointSchedule::due(long iteration, double now, bool background_busy) const {
  if (spec_.automatic) {
    // A level whose cost is not known yet is measured first, the cheapest first.
    for (int l = 1; l <= 5; ++l) {
      const LevelState& s = levels_[l - 1];
      if (s.scheduled && s.cost <= 0 && !(l > 1 && background_busy)) return static_cast<Level>(l);
    }
  }
  for (int l = 5; l >= 1; --l) {
    const LevelState& s = levels_[l - 1];
    if (!s.scheduled) continue;
    const auto level = static_cast<Level>(l);
    if (level != Level::kL1) {
      if (background_busy) continue;
      if (now - s.last_time < s.cost) continue;  // it could not have completed more often
    }
    const double every = intervalSeconds(level, now);
    const bool by_time = every > 0 && now - s.last_time >= every;
    const bool by_iterations = !spec_.automatic && s.interval.iterations > 0 &&
                               iteration - s.last_iteration >= s.interval.iterations;
    if (by_time || by_iterations) return level;
  }
  return std::nullopt;
}

void CheckpointSchedule::taken(Level level, long iteration, double now, double cost_seconds) {
  state(level).cost = cost_seconds;
  for (int l = 1; l <= static_cast<int>(level); ++l) {
    levels_[l - 1].last_iteration = iteration;
    levels_[l - 1].last_time = now;
  }
}

Result<FailureHistory> parseFailureHistory(std::string_view text) {
  FailureHistory h;
  for (const auto& part : split(std::string(text), ',')) {
    const auto colon = part.find(':');
    const std::string kind = part.substr(0, colon);
    long* field = kind == "process" ? &h.process : kind == "node" ? &h.node : nullptr;
    char* end = nullptr;
    const long n = colon == std::string::npos ? -1 : std::strtol(part.c_str() + colon + 1, &end, 10);
    if (!field || n < 0 || colon + 1 == part.size() || *end != '\0') {
      return invalidArgument("FTB_FAILURES element '" + part + "' is not process:N or node:N");
    }
    *field = n;
  }
  return h;
}

void CheckpointSchedule::failureObserved(FailureScope scope) { ++failures_[static_cast<int>(scope)]; }

std::vector<CheckpointSchedule::Choice> CheckpointSchedule::choices(double now) const {
  std::vector<Choice> out;
  for (int l = 1; l <= 5; ++l) {
    const LevelState& s = levels_[l - 1];
    if (!s.scheduled) continue;
    const auto level = static_cast<Level>(l);
    Choice c;
    c.level = level;
    c.iterations = spec_.automatic ? 0 : s.interval.iterations;
    c.seconds = intervalSeconds(level, now);
    c.cost_seconds = s.cost;
    if (spec_.automatic) {
      const FailureScope scope = scopeOf(level);
      c.mtbf_seconds = mtbf(scope, now);
      c.why = s.cost <= 0 ? "cost not measured yet"
                          : "Young/Daly: cost " + format(s.cost) + ", mean time between " + scopeName(scope) +
                                " failures " + format(c.mtbf_seconds);
    } else {
      c.why = "fixed by FTBCKPT_SCHEDULE";
    }
    if (level != Level::kL1 && s.cost > c.seconds && c.seconds > 0) {
      c.seconds = s.cost;
      c.why += "; stretched to its cost, the least time in which it completes";
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ftb::mpi_bridge
