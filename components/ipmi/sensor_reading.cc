#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

std::string_view kindName(SensorKind kind) {
  switch (kind) {
    case SensorKind::kTemperature: return "temperature";
    case SensorKind::kFan: return "fan";
    case SensorKind::kVoltage: return "voltage";
    case SensorKind::kMemory: return "memory";
    case SensorKind::kPowerSupply: return "power_supply";
    case SensorKind::kOther: break;
  }
  return "other";
}

std::string_view levelName(Level level) {
  switch (level) {
    case Level::kNormal: return "normal";
    case Level::kWarning: return "warning";
    case Level::kCritical: return "critical";
  }
  return "unknown";
}

std::string_view thresholdName(Threshold threshold) {
  switch (threshold) {
    case Threshold::kNone: return "none";
    case Threshold::kLowerNonCritical: return "lower_non_critical";
    case Threshold::kLowerCritical: return "lower_critical";
    case Threshold::kLowerNonRecoverable: return "lower_non_recoverable";
    case Threshold::kUpperNonCritical: return "upper_non_critical";
    case Threshold::kUpperCritical: return "upper_critical";
    case Threshold::kUpperNonRecoverable: return "upper_non_recoverable";
  }
  return "none";
}

bool isUpper(Threshold threshold) {
  return threshold == Threshold::kUpperNonCritical || threshold == Threshold::kUpperCritical ||
         threshold == Threshold::kUpperNonRecoverable;
}

}  // namespace ftb::ipmi
