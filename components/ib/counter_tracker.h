// CounterTracker: one port's counters over time. Turns successive readouts
// into increments and rates, knowing that the PMA counters saturate at the
// maximum of their width instead of wrapping, and that they can be reset
// (perfquery -R, driver reload), so a value may go down.
//
//   CounterTracker t(60s);
//   t.update(readout.counters, now);
//   double per_min = t.ratePerMinute("symbol_error", now);
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "components/ib/sysfs_tree.h"

namespace ftb::ib {

using Clock = std::chrono::steady_clock;

// Width in bits of a counter of counters/ (IBTA PortCounters); 64 for the
// extended data counters and for every hw_counters/ entry.
unsigned counterBits(const std::string& name);

struct CounterUpdate {
  std::string name;
  uint64_t value = 0;
  uint64_t delta = 0;       // increase since the previous readout
  bool reset = false;       // the value went down: counted from zero again
  bool saturated = false;   // at the maximum of its width: further increases are invisible
};

class CounterTracker {
 public:
  explicit CounterTracker(std::chrono::seconds window) : window_(window) {}

  // The first readout of a counter only sets its baseline (delta 0). Counters
  // missing from `counters` keep their history and resume when they return.
  std::vector<CounterUpdate> update(const std::vector<CounterValue>& counters, Clock::time_point now);

  // Increase within the window ending at `now`, per minute of window.
  double ratePerMinute(const std::string& name, Clock::time_point now) const;
  bool saturated(const std::string& name) const;
  bool known(const std::string& name) const { return tracks_.count(name) > 0; }

 private:
  struct Track {
    uint64_t last = 0;
    bool saturated = false;
    std::deque<std::pair<Clock::time_point, uint64_t>> increments;  // within the window
  };
  std::chrono::seconds window_;
  std::map<std::string, Track> tracks_;
};

}  // namespace ftb::ib
