// How ftbctl shows events (watch, history): one table row per event, or one
// JSON object per line with --json. The JSON shape is documented in docs/FTBCTL.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/event.h"

namespace ftb::cli {

// The event table's columns: TIME SEVERITY SPACE NAME CLIENT HOST/PID PAYLOAD
// (cells printable-escaped).
std::vector<std::string> eventHeaderCells();
std::vector<std::string> eventCells(const Event& event);

// A table printed row by row as events arrive (watch), when later rows are not
// known yet: columns start wide enough for the project's own spaces and names
// (FTB_IB_EVENT_CLIENT_REREGISTER) and widen for good when a wider cell arrives,
// so one long name shifts only the rows after it.
class EventTableStream {
 public:
  EventTableStream();
  std::string header();
  std::string row(const Event& event);

 private:
  std::string line(const std::vector<std::string>& cells);
  std::vector<std::size_t> widths_;
};

// A row saying that `missed` matching events were lost (a full queue).
std::string missedTableRow(uint64_t missed);

// Every field of the event. The payload is a JSON string when it is valid UTF-8
// ("payload_encoding":"utf-8"), else base64 ("payload_encoding":"base64").
std::string eventJson(const Event& event);
// {"missed":N}
std::string missedJson(uint64_t missed);

}  // namespace ftb::cli
