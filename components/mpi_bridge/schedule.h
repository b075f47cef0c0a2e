// When to checkpoint at which level: an FTI-style multi-level schedule.
//
//   auto spec = parseSchedule("L1:10,L3:50,L5:300s");   // FTBCKPT_SCHEDULE
//   CheckpointSchedule schedule(*spec, /*prior_mtbf_seconds=*/3600);
//   if (auto level = schedule.due(iteration, now, background_busy)) { ...; schedule.taken(*level, ...); }
//
// Each level has an interval in loop iterations or in seconds. The highest level
// that is due is taken, and taking a level also counts for every lower one: each
// level writes L1 and protects against at least what the levels below it do.
// A level above L1 is never due sooner than its last checkpoint's cost after
// that checkpoint (it could not complete more often), nor while an asynchronous
// checkpoint is still completing in the background.
//
// "auto" sets the intervals itself, by Young/Daly per level: √(2·C·M), with C
// that level's measured cost and M the mean time between the failures it is
// there for (L1: any process death; L2-L4: a node's loss; L5: the job's),
// estimated from a prior and the failures observed so far.
//
// Pure logic: time is passed in as seconds on any monotonic clock.
// Threading: one thread (rank 0's MPI thread decides for every rank).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/config.h"

namespace ftb::mpi_bridge {

struct LevelInterval {
  Level level = Level::kL1;
  long iterations = 0;  // every N loop iterations, or
  double seconds = 0;   // every S seconds
};

struct ScheduleSpec {
  std::vector<LevelInterval> levels;  // at most one per level, lowest first
  bool automatic = false;             // "auto": intervals from Young/Daly per level
  std::vector<Level> auto_levels;     // "auto:L1,L3,L5"; empty = L1 and the configured level
};

// "L1:10,L3:50,L5:300s" (a bare number counts iterations, a number with "s"
// seconds), "auto" or "auto:L1,L3,L5". kInvalidArgument names the bad element.
Result<ScheduleSpec> parseSchedule(std::string_view text);

// What a level is there to survive, and so which failures set its interval in "auto".
enum class FailureScope { kProcess = 0, kNode = 1, kJob = 2 };
FailureScope scopeOf(Level level);
std::string scopeName(FailureScope scope);

// The failure history ftb-run hands every run of a job (docs/RECOVERY_EVENTS.md):
// FTB_FAILURES="process:N,node:M", the recoveries of earlier runs by kind.
struct FailureHistory {
  long process = 0;  // dead processes (restarted in place)
  long node = 0;     // lost or failing nodes (relaunched elsewhere, migrated)
};
// Either part may be missing; kInvalidArgument names the bad element.
Result<FailureHistory> parseFailureHistory(std::string_view text);

class CheckpointSchedule {
 public:
  // `prior_mtbf_seconds`: the mean time between failures assumed before any is
  // observed (FTBCKPT_MTBF), for every scope; it weighs as one failure.
  CheckpointSchedule(ScheduleSpec spec, double prior_mtbf_seconds, double start_seconds);

  // The highest level due at this loop iteration and time, if any.
  std::optional<Level> due(long iteration, double now, bool background_busy) const;
  // A checkpoint at `level` completed at `iteration`/`now` and cost `cost_seconds`.
  void taken(Level level, long iteration, double now, double cost_seconds);
  // A failure of this scope happened (a restart, a lost node, a dead process).
  void failureObserved(FailureScope scope);

  // What "auto" chose for each level and why (also the fixed intervals otherwise).
  struct Choice {
    Level level = Level::kL1;
    long iterations = 0;
    double seconds = 0;  // the interval in effect (0 = none yet: no cost measured)
    double cost_seconds = 0;
    double mtbf_seconds = 0;  // for its scope (auto only)
    std::string why;
  };
  std::vector<Choice> choices(double now) const;
  // The mean time between failures of `scope` or wider, as estimated at `now`.
  double mtbf(FailureScope scope, double now) const;
  bool automatic() const { return spec_.automatic; }

 private:
  struct LevelState {
    bool scheduled = false;
    LevelInterval interval;
    long last_iteration = 0;
    double last_time = 0;
    double cost = 0;  // of its last checkpoint; 0 until one was taken
  };
  LevelState& state(Level level) { return levels_[static_cast<int>(level) - 1]; }
  const LevelState& state(Level level) const { return levels_[static_cast<int>(level) - 1]; }
  double intervalSeconds(Level level, double now) const;

  ScheduleSpec spec_;
  double prior_mtbf_;
  double start_;
  std::array<LevelState, 5> levels_{};
  std::array<long, 3> failures_{};  // by scope
};

}  // namespace ftb::mpi_bridge
