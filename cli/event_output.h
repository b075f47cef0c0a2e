// How ftbctl shows events (watch, history): one table row per event, or one
// JSON object per line with --json. The JSON shape is documented in docs/FTBCTL.md.
#pragma once

#include <cstdint>
#include <string>

#include "client/event.h"

namespace ftb::cli {

// Header and rows of the event table, printed row by row as events arrive:
// TIME SEVERITY SPACE NAME CLIENT HOST/PID PAYLOAD (payload printable-escaped).
std::string eventTableHeader();
std::string eventTableRow(const Event& event);
// A row saying that `missed` matching events were lost (a full queue).
std::string missedTableRow(uint64_t missed);

// Every field of the event. The payload is a JSON string when it is valid UTF-8
// ("payload_encoding":"utf-8"), else base64 ("payload_encoding":"base64").
std::string eventJson(const Event& event);
// {"missed":N}
std::string missedJson(uint64_t missed);

}  // namespace ftb::cli
