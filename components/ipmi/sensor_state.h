// SensorStateMachine: turns a sensor's stream of readings into the few state
// changes worth publishing.
//
//  - debounce: a new level must be read `debounce_readings` times in a row;
//  - hysteresis: leaving a level needs the value back past the threshold that
//    was crossed by `hysteresis_fraction` of it (the BMC applies its own too);
//  - flapping: more than `flap_max_changes` confirmed changes within
//    `flap_window` publish one kFlapping decision, then nothing until the sensor
//    has kept one level for `flap_window`; its level is then published if it
//    differs from the last one published.
//
// Time is passed in, so tests drive it without sleeping. Not thread-safe: one
// BmcWatcher owns each machine.
#pragma once

#include <chrono>
#include <deque>
#include <optional>

#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

using Clock = std::chrono::steady_clock;

struct StateMachineOptions {
  int debounce_readings = 2;
  double hysteresis_fraction = 0.02;
  int flap_max_changes = 4;
  Clock::duration flap_window = std::chrono::seconds(300);
};

struct Observation {
  Level level = Level::kNormal;
  Threshold crossed = Threshold::kNone;
  std::optional<double> value;
  std::optional<double> threshold_value;  // of `crossed`
};

struct Decision {
  enum class Kind { kNone, kChange, kFlapping };
  Kind kind = Kind::kNone;
  Level from = Level::kNormal;  // kChange: last published level
  Level to = Level::kNormal;    // kChange: the level to publish now
  Threshold crossed = Threshold::kNone;  // kChange: the threshold that confirmed `to`
  std::optional<double> threshold_value;
};

class SensorStateMachine {
 public:
  explicit SensorStateMachine(StateMachineOptions options = {}) : options_(options) {}

  Decision observe(const Observation& observation, Clock::time_point now);

  Level published() const { return published_; }
  // A level different from the confirmed one was read but not yet often enough.
  bool pending() const { return count_ > 0; }
  bool flapping() const { return flapping_; }

 private:
  Level withHysteresis(const Observation& o) const;
  Decision change();

  StateMachineOptions options_;
  Level confirmed_ = Level::kNormal;
  Threshold confirmed_threshold_ = Threshold::kNone;
  std::optional<double> confirmed_threshold_value_;
  Level candidate_ = Level::kNormal;
  int count_ = 0;
  Level published_ = Level::kNormal;
  bool flapping_ = false;
  std::deque<Clock::time_point> changes_;  // confirmed changes within flap_window
};

}  // namespace ftb::ipmi
