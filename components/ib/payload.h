// Event payloads: the original FTB-IB text first (old consumers parse only
// that, e.g. "NUM_ADAPTERS:2" or "HCA:mlx5_0 PORT:1 STATE:PORT_ACTIVE"), then
// machine-readable key=value fields:
//
//   HCA:mlx5_0 PORT:1 STATE:PORT_DOWN hca=mlx5_0 port=1 state=PORT_DOWN phys_state=Disabled ...
//
// Values with spaces, quotes, backslashes or '=' are double-quoted with
// backslash escapes. Trailing fields are dropped to stay within
// kMaxPayloadBytes (the FTB 0.5 C API's limit), so the important ones go first.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ftb::ib {

inline constexpr std::size_t kMaxPayloadBytes = 368;

using PayloadFields = std::vector<std::pair<std::string, std::string>>;

std::string formatPayload(std::string_view original, const PayloadFields& fields,
                          std::size_t max_bytes = kMaxPayloadBytes);

}  // namespace ftb::ib
