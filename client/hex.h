// Bytes as lower-case hex text and back: binary values in text formats (an
// FTB 0.5 event's tag area in an event tag, a held event in ftb-run's journal).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ftb {

std::string hexEncode(std::string_view bytes);
// 0-15 for a hex digit of either case, else -1.
int hexDigit(char c);
// Either case; nothing when the length is odd or a character is not a hex digit.
std::optional<std::string> hexDecode(std::string_view text);

}  // namespace ftb
