// ftb-ipmi's payloads: the node's host name first (FTB-IPMI consumers parse
// only that), then key=value fields, in the components' shared format
// (client/payload_fields.h):
//
//   node17 node=node17 bmc=10.1.0.17:623 sensor="CPU1 Temp" type=temperature
//          state=critical previous=normal reading=95.00 units=C
//          threshold=upper_critical threshold_value=90.00
#pragma once

#include <string>

#include "client/payload_fields.h"

namespace ftb::ipmi {

// "95.00": readings and thresholds with two decimals.
std::string formatNumber(double value);

}  // namespace ftb::ipmi
