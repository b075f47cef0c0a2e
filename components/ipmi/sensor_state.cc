#include "components/ipmi/sensor_state.h"

#include <cmath>

namespace ftb::ipmi {

Level SensorStateMachine::withHysteresis(const Observation& o) const {
  if (o.level >= confirmed_ || !o.value || !confirmed_threshold_value_) return o.level;
  const double threshold = *confirmed_threshold_value_;
  const double margin = options_.hysteresis_fraction * std::fabs(threshold);
  const bool clear = isUpper(confirmed_threshold_) ? *o.value <= threshold - margin
                                                   : *o.value >= threshold + margin;
  return clear ? o.level : confirmed_;
}

Decision SensorStateMachine::change() {
  Decision d{.kind = Decision::Kind::kChange, .from = published_, .to = confirmed_,
             .crossed = confirmed_threshold_, .threshold_value = confirmed_threshold_value_};
  published_ = confirmed_;
  return d;
}

Decision SensorStateMachine::observe(const Observation& o, Clock::time_point now) {
  const Level level = withHysteresis(o);
  bool changed = false;
  if (level == confirmed_) {
    count_ = 0;
    // Same level: follow the worst threshold now crossed, for the payload.
    if (o.crossed != Threshold::kNone && level == o.level) {
      confirmed_threshold_ = o.crossed;
      confirmed_threshold_value_ = o.threshold_value;
    }
  } else {
    if (level != candidate_) {
      candidate_ = level;
      count_ = 0;
    }
    if (++count_ >= options_.debounce_readings) {
      count_ = 0;
      confirmed_ = level;
      confirmed_threshold_ = level == o.level ? o.crossed : Threshold::kNone;
      confirmed_threshold_value_ = level == o.level ? o.threshold_value : std::nullopt;
      changed = true;
    }
  }

  while (!changes_.empty() && now - changes_.front() > options_.flap_window) changes_.pop_front();
  if (changed) changes_.push_back(now);

  if (flapping_) {
    const bool settled = changes_.empty();
    if (!settled) return {};
    flapping_ = false;
    return confirmed_ != published_ ? change() : Decision{};
  }
  if (!changed) return {};
  if (static_cast<int>(changes_.size()) > options_.flap_max_changes) {
    flapping_ = true;
    return {.kind = Decision::Kind::kFlapping, .from = published_, .to = confirmed_};
  }
  return confirmed_ != published_ ? change() : Decision{};
}

}  // namespace ftb::ipmi
