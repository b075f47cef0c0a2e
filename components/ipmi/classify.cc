#include "components/ipmi/classify.h"

#include <array>

namespace ftb::ipmi {
namespace {

struct Condition {
  Level level;
  const char* name;  // nullptr: nothing to report (e.g. "presence detected")
};

// Memory (0x0c) offsets 0..10, IPMI 2.0 table 42-3.
constexpr std::array<Condition, 11> kMemory = {{
    {Level::kWarning, "correctable_ecc"},
    {Level::kCritical, "uncorrectable_ecc"},
    {Level::kCritical, "parity_error"},
    {Level::kCritical, "memory_scrub_failed"},
    {Level::kWarning, "memory_device_disabled"},
    {Level::kWarning, "correctable_ecc_logging_limit"},
    {Level::kNormal, nullptr},  // presence detected
    {Level::kCritical, "memory_configuration_error"},
    {Level::kWarning, "memory_spare"},
    {Level::kWarning, "memory_throttled"},
    {Level::kCritical, "memory_critical_overtemperature"},
}};

// Power supply (0x08) offsets 0..6.
constexpr std::array<Condition, 7> kPowerSupply = {{
    {Level::kNormal, nullptr},  // presence detected
    {Level::kCritical, "psu_failure"},
    {Level::kWarning, "psu_predictive_failure"},
    {Level::kCritical, "psu_input_lost"},
    {Level::kCritical, "psu_input_lost_or_out_of_range"},
    {Level::kWarning, "psu_input_out_of_range"},
    {Level::kWarning, "psu_configuration_error"},
}};

template <std::size_t N>
DiscreteState worst(const std::array<Condition, N>& table, uint16_t bits) {
  DiscreteState state;
  for (std::size_t i = 0; i < N; ++i) {
    const Condition& c = table[i];
    if ((bits & (1u << i)) != 0 && c.name != nullptr &&
        (state.condition.empty() || c.level > state.level)) {
      state = {c.level, c.name};
    }
  }
  return state;
}

}  // namespace

SensorKind kindFromSensorType(uint8_t sensor_type) {
  switch (sensor_type) {
    case 0x01: return SensorKind::kTemperature;
    case 0x02: return SensorKind::kVoltage;
    case 0x04: return SensorKind::kFan;
    case 0x08: return SensorKind::kPowerSupply;
    case 0x0c: return SensorKind::kMemory;
    default: return SensorKind::kOther;
  }
}

ThresholdState classifyThresholdBits(uint16_t bits) {
  // Worst first: non-recoverable, then critical, then non-critical.
  static constexpr std::array<std::pair<int, Threshold>, 6> kOrder = {{
      {5, Threshold::kUpperNonRecoverable},
      {2, Threshold::kLowerNonRecoverable},
      {4, Threshold::kUpperCritical},
      {1, Threshold::kLowerCritical},
      {3, Threshold::kUpperNonCritical},
      {0, Threshold::kLowerNonCritical},
  }};
  for (const auto& [bit, threshold] : kOrder) {
    if ((bits & (1u << bit)) != 0) return {levelOfThreshold(threshold), threshold};
  }
  return {};
}

std::optional<DiscreteState> classifyDiscrete(SensorKind kind, uint16_t bits) {
  if (kind == SensorKind::kMemory) return worst(kMemory, bits);
  if (kind == SensorKind::kPowerSupply) return worst(kPowerSupply, bits);
  return std::nullopt;
}

Threshold thresholdFromSelOffset(uint8_t offset) {
  switch (offset / 2) {
    case 0: return Threshold::kLowerNonCritical;
    case 1: return Threshold::kLowerCritical;
    case 2: return Threshold::kLowerNonRecoverable;
    case 3: return Threshold::kUpperNonCritical;
    case 4: return Threshold::kUpperCritical;
    case 5: return Threshold::kUpperNonRecoverable;
    default: return Threshold::kNone;
  }
}

Level levelOfThreshold(Threshold threshold) {
  switch (threshold) {
    case Threshold::kNone: return Level::kNormal;
    case Threshold::kLowerNonCritical:
    case Threshold::kUpperNonCritical: return Level::kWarning;
    default: return Level::kCritical;
  }
}

}  // namespace ftb::ipmi
