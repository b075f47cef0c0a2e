#include "components/ipmi/events.h"

#include <string>

namespace ftb::ipmi {

std::vector<EventDeclaration> eventDeclarations() {
  auto d = [](std::string_view name, Severity s) { return EventDeclaration{std::string(name), s}; };
  return {
      d(kFanFail, Severity::kError),          d(kOverTemp, Severity::kError),
      d(kVoltage, Severity::kError),          d(kEccUncorrectable, Severity::kError),
      d(kEccCorrectable, Severity::kWarning), d(kPsuFail, Severity::kError),
      d(kSensorCritical, Severity::kError),   d(kSensorWarning, Severity::kWarning),
      d(kNormal, Severity::kInfo),            d(kFlapping, Severity::kWarning),
      d(kMonitorTrouble, Severity::kWarning), d(kBmcOnline, Severity::kInfo),
  };
}

std::string_view eventFor(SensorKind kind, Level level, Threshold crossed,
                          std::string_view condition) {
  if (level == Level::kNormal) return kNormal;
  if (kind == SensorKind::kMemory) {
    if (condition.starts_with("correctable_ecc")) return kEccCorrectable;
    if (condition == "uncorrectable_ecc") return kEccUncorrectable;
  }
  if (level == Level::kWarning) return kSensorWarning;
  switch (kind) {
    case SensorKind::kFan: return kFanFail;
    case SensorKind::kTemperature: return isUpper(crossed) ? kOverTemp : kSensorCritical;
    case SensorKind::kVoltage: return kVoltage;
    case SensorKind::kPowerSupply: return kPsuFail;
    default: return kSensorCritical;
  }
}

}  // namespace ftb::ipmi
