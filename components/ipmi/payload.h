// Event payloads: the node's host name first (FTB-IPMI consumers parse only
// that), then machine-readable key=value fields:
//
//   node17 node=node17 bmc=10.1.0.17:623 sensor="CPU1 Temp" type=temperature
//          state=critical previous=normal reading=95.00 units=C
//          threshold=upper_critical threshold_value=90.00
//
// Values with spaces, quotes, backslashes or '=' are double-quoted with
// backslash escapes. Trailing fields are dropped to stay within kMaxPayloadBytes
// (the FTB 0.5 C API's limit), so put the important fields first.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/status.h"

namespace ftb::ipmi {

inline constexpr std::size_t kMaxPayloadBytes = 368;

using PayloadFields = std::vector<std::pair<std::string, std::string>>;

std::string formatPayload(std::string_view host, const PayloadFields& fields,
                          std::size_t max_bytes = kMaxPayloadBytes);

struct ParsedPayload {
  std::string host;
  std::map<std::string, std::string> fields;
};

// Reads back what formatPayload wrote; kInvalidArgument names the bad token.
Result<ParsedPayload> parsePayload(std::string_view payload);

// "95.00": readings and thresholds with two decimals.
std::string formatNumber(double value);

}  // namespace ftb::ipmi
