// The events ftb-ipmi publishes (namespace FTB.IPMI.<component>) and which one
// a sensor's new state maps to. docs: components/ipmi/README.md "Events".
#pragma once

#include <string_view>
#include <vector>

#include "client/event.h"
#include "components/ipmi/sensor_reading.h"

namespace ftb::ipmi {

inline constexpr std::string_view kFanFail = "FTB_IPMI_FANFAIL";                 // ERROR
inline constexpr std::string_view kOverTemp = "FTB_IPMI_OVERTEMP";               // ERROR
inline constexpr std::string_view kVoltage = "FTB_IPMI_VOLTAGE_OUT_OF_RANGE";    // ERROR
inline constexpr std::string_view kEccUncorrectable = "FTB_IPMI_ECC_UNCORRECTABLE";  // ERROR
inline constexpr std::string_view kEccCorrectable = "FTB_IPMI_ECC_CORRECTABLE";  // WARNING
inline constexpr std::string_view kPsuFail = "FTB_IPMI_PSU_FAIL";                // ERROR
inline constexpr std::string_view kSensorCritical = "FTB_IPMI_SENSOR_CRITICAL";  // ERROR
// A non-critical threshold crossed (approaching a critical one) or a predictive failure.
inline constexpr std::string_view kSensorWarning = "FTB_IPMI_SENSOR_WARNING";    // WARNING
// A sensor reported in one of the states above is healthy again.
inline constexpr std::string_view kNormal = "FTB_IPMI_NORMAL";                   // INFO
// A sensor changed state too often; its changes are held back until it settles.
inline constexpr std::string_view kFlapping = "FTB_IPMI_SENSOR_FLAPPING";        // WARNING
// The monitor's own trouble: a BMC unreachable, credentials rejected, SDR unreadable.
inline constexpr std::string_view kMonitorTrouble = "FTB_IPMI_MONITOR_TROUBLE";  // WARNING
// A BMC session is established (first time or after trouble).
inline constexpr std::string_view kBmcOnline = "FTB_IPMI_BMC_ONLINE";            // INFO

// Everything above with its severity, for Client::declare.
std::vector<EventDeclaration> eventDeclarations();

// The event for a sensor that entered `level` (warning or critical).
std::string_view eventFor(SensorKind kind, Level level, Threshold crossed,
                          std::string_view condition);

}  // namespace ftb::ipmi
