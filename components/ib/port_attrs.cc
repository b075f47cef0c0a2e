#include "components/ib/port_attrs.h"

#include <cmath>

namespace ftb::ib {

std::string_view portStateName(int state) {
  switch (state) {
    case 0: return "PORT_NOP";
    case 1: return "PORT_DOWN";
    case 2: return "PORT_INIT";
    case 3: return "PORT_ARMED";
    case 4: return "PORT_ACTIVE";
    case 5: return "PORT_ACTIVE_DEFER";
    default: return "PORT_UNKNOWN";
  }
}

std::string_view physStateName(int phys_state) {
  switch (phys_state) {
    case 1: return "Sleep";
    case 2: return "Polling";
    case 3: return "Disabled";
    case 4: return "PortConfigurationTraining";
    case 5: return "LinkUp";
    case 6: return "LinkErrorRecovery";
    case 7: return "PhyTest";
    default: return "Unknown";
  }
}

std::string_view speedName(double g) {
  struct Named {
    double gbps;
    std::string_view name;
  };
  // FDR10 signals at 10.3125 Gb/s but is reported as 10 like QDR; the kernel's
  // rate file names it, verbs' active_speed 8 does too (see ibverbs_devices.cc).
  static constexpr Named kSpeeds[] = {{2.5, "SDR"},  {5, "DDR"},  {10, "QDR"},  {14, "FDR"},
                                      {25, "EDR"},   {50, "HDR"}, {100, "NDR"}, {200, "XDR"}};
  for (const Named& s : kSpeeds) {
    if (std::fabs(s.gbps - g) < 0.01) return s.name;
  }
  return "";
}

}  // namespace ftb::ib
