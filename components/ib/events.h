// The events ftb-ib publishes (namespace FTB.IB.<component>): the original
// FTB-IB's names and severities, plus GID change, client re-register, the
// prediction pair DEGRADED/HEALTHY and the monitor's own trouble.
// docs: components/ib/README.md "Events".
#pragma once

#include <string_view>
#include <vector>

#include "client/event.h"

namespace ftb::ib {

inline constexpr std::string_view kAdapterAvailable = "FTB_IB_ADAPTER_AVAILABLE";      // INFO
inline constexpr std::string_view kAdapterUnavailable = "FTB_IB_ADAPTER_UNAVAILABLE";  // WARNING
inline constexpr std::string_view kAdapterInfo = "FTB_IB_ADAPTER_INFO";                // INFO
inline constexpr std::string_view kPortInfo = "FTB_IB_PORT_INFO";                      // INFO
inline constexpr std::string_view kPortErr = "FTB_IB_PORT_ERR";                        // ERROR
inline constexpr std::string_view kPortActive = "FTB_IB_PORT_ACTIVE";                  // INFO
inline constexpr std::string_view kDeviceFatal = "FTB_IB_EVENT_DEVICE_FATAL";          // FATAL
inline constexpr std::string_view kLidChange = "FTB_IB_EVENT_LID_CHANGE";              // INFO
inline constexpr std::string_view kPkeyChange = "FTB_IB_EVENT_PKEY_CHANGE";            // INFO
inline constexpr std::string_view kSmChange = "FTB_IB_EVENT_SM_CHANGE";                // INFO
inline constexpr std::string_view kGidChange = "FTB_IB_EVENT_GID_CHANGE";              // INFO
inline constexpr std::string_view kClientReregister = "FTB_IB_EVENT_CLIENT_REREGISTER";  // INFO
// Prediction: error counters rising too fast, or a link below its width/speed.
inline constexpr std::string_view kPortDegraded = "FTB_IB_PORT_DEGRADED";  // WARNING
// A degraded port is clean again (after --recover-sweeps clean sweeps).
inline constexpr std::string_view kPortHealthy = "FTB_IB_PORT_HEALTHY";  // INFO
// The monitor's own trouble: a device that cannot be opened, unreadable or malformed sysfs files.
inline constexpr std::string_view kMonitorTrouble = "FTB_IB_MONITOR_TROUBLE";  // WARNING

// Everything above with its severity, for Client::declare.
std::vector<EventDeclaration> eventDeclarations();

}  // namespace ftb::ib
