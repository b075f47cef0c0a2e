// What a SensorSource reports: one reading per sensor per sweep, and the
// System Event Log records the BMC added since the last look. Plain values,
// no FreeIPMI types, so the health logic can be tested with table-driven fakes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftb::ipmi {

// The sensor families the monitor names events after (IPMI sensor types).
enum class SensorKind { kTemperature, kFan, kVoltage, kMemory, kPowerSupply, kOther };

// Health of one sensor. Ordered: a larger value is worse.
enum class Level { kNormal = 0, kWarning = 1, kCritical = 2 };

// The threshold an analog sensor is at or beyond (the worst one when several are).
enum class Threshold {
  kNone,
  kLowerNonCritical,
  kLowerCritical,
  kLowerNonRecoverable,
  kUpperNonCritical,
  kUpperCritical,
  kUpperNonRecoverable,
};

struct SensorReading {
  uint16_t record_id = 0;     // SDR record id
  uint8_t sensor_number = 0;  // as in SEL records
  std::string name;           // "FAN1"
  SensorKind kind = SensorKind::kOther;
  Level level = Level::kNormal;
  std::optional<double> value;  // analog sensors only
  std::string units;            // "RPM", "C", "V"; "" for discrete sensors
  Threshold crossed = Threshold::kNone;
  std::optional<double> threshold_value;  // value of `crossed`, when the SDR gives it
  // Discrete sensors: what is asserted, e.g. "uncorrectable_ecc", "psu_failure"; "" if nothing.
  std::string condition;
};

struct SelRecord {
  uint16_t record_id = 0;
  uint8_t sensor_number = 0;
  std::string sensor_name;  // from the SDR; "" when the sensor is unknown
  SensorKind kind = SensorKind::kOther;
  bool assertion = true;          // false: deassertion (the condition went away)
  bool threshold_event = false;   // event/reading type 0x01 (an analog threshold crossing)
  Level level = Level::kNormal;   // of the asserted condition
  Threshold crossed = Threshold::kNone;  // threshold events
  std::string condition;          // discrete events, as in SensorReading
  std::string description;        // FreeIPMI's text, e.g. "Correctable memory error"
};

std::string_view kindName(SensorKind kind);            // "temperature", "fan", ...
std::string_view levelName(Level level);               // "normal", "warning", "critical"
std::string_view thresholdName(Threshold threshold);   // "lower_critical", ...; "none"
bool isUpper(Threshold threshold);

}  // namespace ftb::ipmi
