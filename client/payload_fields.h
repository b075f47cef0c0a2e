// The payload text ftb's components publish: a human-readable head first (what
// the original FTB component printed, which old consumers parse: a host name,
// "NUM_ADAPTERS:2", ...), then machine-readable key=value fields:
//
//   node17 sensor="CPU1 Temp" state=critical reading=95.00
//
// A value that is empty or holds a space, quote, backslash or '=' is
// double-quoted with backslash escapes (tabs and newlines become spaces).
// Trailing fields are dropped to stay within kMaxPayloadBytes, the FTB 0.5 C
// API's limit, so the important fields go first.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/event.h"
#include "client/status.h"

namespace ftb {

inline constexpr std::size_t kMaxPayloadBytes = 368;  // FTB_MAX_PAYLOAD_DATA

using PayloadFields = std::vector<std::pair<std::string, std::string>>;

std::string formatPayload(std::string_view head, const PayloadFields& fields,
                          std::size_t max_bytes = kMaxPayloadBytes);
// The same with an event's tags as the fields (in key order).
std::string formatTagsPayload(std::string_view head, const Tags& tags,
                              std::size_t max_bytes = kMaxPayloadBytes);

struct ParsedPayload {
  std::string head;  // the first word
  std::map<std::string, std::string> fields;
};

// Reads back what formatPayload wrote when its head is one word;
// kInvalidArgument names the bad token.
Result<ParsedPayload> parsePayload(std::string_view payload);

// The value of field `key` (unquoted, unescaped) whatever the head holds;
// "" when the payload has no such field.
std::string payloadField(std::string_view payload, std::string_view key);

}  // namespace ftb
