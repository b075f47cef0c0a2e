#include "components/ib/counter_tracker.h"

namespace ftb::ib {

unsigned counterBits(const std::string& name) {
  static const std::map<std::string, unsigned> kBits = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32},
  };
  auto it = kBits.find(name);
  return it == kBits.end() ? 64 : it->second;
}

std::vector<CounterUpdate> CounterTracker::update(const std::vector<CounterValue>& counters,
                                                  Clock::time_point now) {
  std::vector<CounterUpdate> updates;
  for (const CounterValue& c : counters) {
    const unsigned bits = counterBits(c.name);
    const uint64_t max = bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    CounterUpdate u{.name = c.name, .value = c.value, .saturated = bits < 64 && c.value >= max};
    auto [it, first] = tracks_.try_emplace(c.name);
    Track& t = it->second;
    if (!first) {
      if (c.value >= t.last) {
        u.delta = c.value - t.last;
      } else {
        // Reset (or, for a 64-bit counter, a wrap that cannot be told apart):
        // what it counts now happened since the reset.
        u.reset = true;
        u.delta = c.value;
      }
    }
    t.last = c.value;
    t.saturated = u.saturated;
    if (u.delta > 0) t.increments.emplace_back(now, u.delta);
    while (!t.increments.empty() && t.increments.front().first <= now - window_) {
      t.increments.pop_front();
    }
    updates.push_back(u);
  }
  return updates;
}

double CounterTracker::ratePerMinute(const std::string& name, Clock::time_point now) const {
  auto it = tracks_.find(name);
  if (it == tracks_.end()) return 0;
  uint64_t sum = 0;
  for (const auto& [when, delta] : it->second.increments) {
    if (when > now - window_) sum += delta;
  }
  return static_cast<double>(sum) * 60.0 / static_cast<double>(window_.count());
}

bool CounterTracker::saturated(const std::string& name) const {
  auto it = tracks_.find(name);
  return it != tracks_.end() && it->second.saturated;
}

}  // namespace ftb::ib
