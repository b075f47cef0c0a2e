// PortPredictor: decides from one port's counters and link attributes, sweep
// by sweep, whether the port is degrading (fault prediction) and when it has
// recovered. No I/O: readouts and time come in, decisions go out.
//
// Degraded when, at a sweep:
//   - an error counter rose faster than its threshold (errors per minute,
//     counted over the last `window`), or sits saturated at its maximum (so
//     further errors would be invisible), or
//   - an ACTIVE link runs at fewer lanes than `expected_width` or than the best
//     seen on this port, or at a lower lane speed than the best seen.
// Healthy again (hysteresis) after `recover_sweeps` sweeps in a row with every
// rate at or below half its threshold, nothing saturated and the link at full
// width and speed.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "components/ib/counter_tracker.h"
#include "components/ib/port_attrs.h"

namespace ftb::ib {

struct PredictionOptions {
  std::map<std::string, double> thresholds_per_min;  // counter name -> limit; 0 = not watched
  std::chrono::seconds window{60};
  uint32_t expected_width = 0;  // lanes; 0 = only compare with the best seen
  uint32_t recover_sweeps = 3;
};

// infiniband-diags' error_thresholds, read as errors per minute.
std::map<std::string, double> defaultThresholds();

struct Assessment {
  enum class Change { kNone, kDegraded, kHealthy };
  Change change = Change::kNone;
  // kDegraded: why, e.g. "symbol_error 12/min > 10/min", "width 1X < 4X".
  std::vector<std::string> reasons;
  // kDegraded: the current value of every counter a reason names.
  std::map<std::string, uint64_t> values;
  // Counters that went down since the last sweep (reset), for the log.
  std::vector<std::string> resets;
};

class PortPredictor {
 public:
  explicit PortPredictor(PredictionOptions options)
      : options_(std::move(options)), tracker_(options_.window) {}

  // `attrs` is nullopt when the port could not be queried this sweep.
  Assessment assess(const std::vector<CounterValue>& counters,
                    const std::optional<PortAttrs>& attrs, Clock::time_point now);
  bool degraded() const { return degraded_; }
  const CounterTracker& tracker() const { return tracker_; }

 private:
  PredictionOptions options_;
  CounterTracker tracker_;
  uint32_t best_width_ = 0;
  double best_lane_gbps_ = 0;
  bool degraded_ = false;
  uint32_t clean_sweeps_ = 0;
  std::set<std::string> reported_;  // what the last kDegraded named (counter, "width", "speed")
};

}  // namespace ftb::ib
