// Pure mappings from IPMI codes (sensor types, threshold comparison bits,
// sensor-specific offsets) to the monitor's health model. No FreeIPMI types:
// the FreeIPMI reader calls these and the unit tests check them by table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

// IPMI sensor type code (IPMI 2.0 table 42-3) to the family the monitor reports.
SensorKind kindFromSensorType(uint8_t sensor_type);

struct ThresholdState {
  Level level = Level::kNormal;
  Threshold crossed = Threshold::kNone;
};

// Threshold comparison bits of Get Sensor Reading (bit 0 at/below lower
// non-critical ... bit 5 at/above upper non-recoverable). Non-critical is a
// warning ("approaching"); critical and non-recoverable are critical. We do not
// use FreeIPMI's interpretation file here: its default rates non-critical as Nominal.
ThresholdState classifyThresholdBits(uint16_t bits);

struct DiscreteState {
  Level level = Level::kNormal;
  std::string condition;  // worst asserted condition, "" when nothing of note
};

// Sensor-specific (event/reading type 0x6f) bits of memory and power-supply
// sensors. nullopt for other kinds: the caller falls back to FreeIPMI's interpretation.
std::optional<DiscreteState> classifyDiscrete(SensorKind kind, uint16_t bits);

// Offset of a threshold SEL event (0 = lower non-critical going low ... 11 =
// upper non-recoverable going high) to the threshold it names.
Threshold thresholdFromSelOffset(uint8_t offset);
Level levelOfThreshold(Threshold threshold);

}  // namespace ftb::ipmi
