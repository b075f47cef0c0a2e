// Plain values describing an HCA and its ports, whichever backend read them
// (libibverbs or sysfs). Numbering follows the IBTA / libibverbs enums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ftb::ib {

// ibv_port_state: 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.
inline constexpr int kStateDown = 1;
inline constexpr int kStateActive = 4;

struct DeviceInfo {
  std::string name;  // "mlx5_0", "rxe0"
  uint32_t num_ports = 0;
  std::string fw_ver;
  std::string node_guid;  // "0002:c903:0000:beef"
};

struct PortAttrs {
  int state = 0;       // see above
  int phys_state = 0;  // 1 Sleep, 2 Polling, 3 Disabled, 4 Training, 5 LinkUp, 6 ErrorRecovery, 7 PhyTest
  uint32_t lid = 0;
  uint32_t sm_lid = 0;
  uint32_t lmc = 0;
  uint32_t sm_sl = 0;
  std::string link_layer;  // "InfiniBand", "Ethernet"
  uint32_t width = 0;      // lanes: 1, 2, 4, 8, 12; 0 unknown
  double lane_gbps = 0;    // per-lane signalling rate: 2.5 SDR ... 100 NDR; 0 unknown
  bool operator==(const PortAttrs&) const = default;
};

// "PORT_ACTIVE", "PORT_DOWN", ... as the original FTB-IB and ibv_port_state_str print them.
std::string_view portStateName(int state);
// "LinkUp", "Polling", ...
std::string_view physStateName(int phys_state);
// "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR" from a per-lane rate; "" unknown.
std::string_view speedName(double lane_gbps);

}  // namespace ftb::ib
