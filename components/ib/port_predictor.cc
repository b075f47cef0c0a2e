#include "components/ib/port_predictor.h"

#include <algorithm>
#include <cstdio>

namespace ftb::ib {

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

std::string laneText(double gbps) {
  std::string_view name = speedName(gbps);
  return name.empty() ? number(gbps) + "Gb/s" : std::string(name);
}

}  // namespace

std::map<std::string, double> defaultThresholds() {
  return {
      {"symbol_error", 10},
      {"link_error_recovery", 10},
      {"link_downed", 10},
      {"port_rcv_errors", 10},
      {"local_link_integrity_errors", 10},
      {"excessive_buffer_overrun_errors", 10},
      {"port_rcv_remote_physical_errors", 100},
      {"port_rcv_switch_relay_errors", 100},
      {"port_xmit_discards", 100},
      {"port_xmit_constraint_errors", 100},
      {"port_rcv_constraint_errors", 100},
      {"VL15_dropped", 100},
  };
}

Assessment PortPredictor::assess(const std::vector<CounterValue>& counters,
                                 const std::optional<PortAttrs>& attrs, Clock::time_point now) {
  Assessment out;
  std::map<std::string, uint64_t> values;
  for (const CounterUpdate& u : tracker_.update(counters, now)) {
    if (u.reset) out.resets.push_back(u.name);
    values[u.name] = u.value;
  }

  std::set<std::string> named;
  bool clean = true;
  for (const auto& [name, limit] : options_.thresholds_per_min) {
    if (limit <= 0 || !tracker_.known(name)) continue;
    const double rate = tracker_.ratePerMinute(name, now);
    if (rate > limit) {
      out.reasons.push_back(name + " " + number(rate) + "/min > " + number(limit) + "/min");
      named.insert(name);
      if (values.count(name)) out.values[name] = values[name];
    } else if (tracker_.saturated(name)) {
      out.reasons.push_back(name + " saturated at its maximum");
      named.insert(name);
      if (values.count(name)) out.values[name] = values[name];
    }
    if (rate > limit / 2) clean = false;
  }

  if (attrs && attrs->state == kStateActive) {
    best_width_ = std::max(best_width_, attrs->width);
    best_lane_gbps_ = std::max(best_lane_gbps_, attrs->lane_gbps);
    const uint32_t want_width = std::max(best_width_, options_.expected_width);
    if (attrs->width > 0 && attrs->width < want_width) {
      out.reasons.push_back("width " + std::to_string(attrs->width) + "X < " +
                            std::to_string(want_width) + "X");
      named.insert("width");
    }
    if (attrs->lane_gbps > 0 && attrs->lane_gbps < best_lane_gbps_) {
      out.reasons.push_back("speed " + laneText(attrs->lane_gbps) + " < " +
                            laneText(best_lane_gbps_));
      named.insert("speed");
    }
  }

  if (!named.empty()) {
    clean_sweeps_ = 0;
    const bool something_new =
        !std::includes(reported_.begin(), reported_.end(), named.begin(), named.end());
    if (!degraded_ || something_new) out.change = Assessment::Change::kDegraded;
    degraded_ = true;
    if (out.change == Assessment::Change::kDegraded) reported_.insert(named.begin(), named.end());
  } else if (degraded_) {
    clean_sweeps_ = clean ? clean_sweeps_ + 1 : 0;
    if (clean_sweeps_ >= options_.recover_sweeps) {
      out.change = Assessment::Change::kHealthy;
      degraded_ = false;
      clean_sweeps_ = 0;
      reported_.clear();
    }
  }
  return out;
}

}  // namespace ftb::ib
