#include "cli/event_output.h"

#include <algorithm>
#include <vector>

#include "cli/output.h"

namespace ftb::cli {
namespace {

// Starting widths of the streamed table: a millisecond timestamp, the longest
// severity, and the project's longest event space and name (FTB.EXAMPLES.WATCHDOG,
// FTB_IB_EVENT_CLIENT_REREGISTER) with some room.
const std::vector<std::size_t> kStartWidths = {24, 8, 22, 30, 12, 18};

}  // namespace

std::vector<std::string> eventHeaderCells() {
  return {"TIME", "SEVERITY", "SPACE", "NAME", "CLIENT", "HOST/PID", "PAYLOAD"};
}

std::vector<std::string> eventCells(const Event& event) {
  return {formatTime(event.time_sec, event.time_nsec, 3),
          std::string(severityName(event.severity)),
          printable(event.event_space),
          printable(event.event_name),
          printable(event.client_name),
          printable(event.id.host) + "/" + std::to_string(event.id.pid),
          printable(event.payload)};
}

EventTableStream::EventTableStream() : widths_(kStartWidths) {}

std::string EventTableStream::header() { return line(eventHeaderCells()); }

std::string EventTableStream::row(const Event& event) { return line(eventCells(event)); }

std::string EventTableStream::line(const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < widths_.size() && i < cells.size(); ++i) {
    widths_[i] = std::max(widths_[i], displayWidth(cells[i]));
  }
  return formatRow(cells, widths_);
}

std::string missedTableRow(uint64_t missed) {
  return "-- " + std::to_string(missed) +
         " matching event(s) missed: a queue was full (the agent's --client-queue-events, or "
         "this watch read too slowly) --";
}

std::string eventJson(const Event& event) {
  JsonWriter j;
  j.beginObject();
  j.key("id").value(event.id.toString());
  j.key("time").value(formatTime(event.time_sec, event.time_nsec, 9));
  j.key("time_sec").value(event.time_sec);
  j.key("time_nsec").value(event.time_nsec);
  j.key("severity").value(severityName(event.severity));
  j.key("space").value(event.event_space);
  j.key("name").value(event.event_name);
  j.key("client").value(event.client_name);
  j.key("job_id").value(event.job_id);
  j.key("host").value(event.id.host);
  j.key("pid").value(event.id.pid);
  j.key("type").value(event.type == EventType::kResponse ? "RESPONSE" : "NORMAL");
  if (event.response_to) j.key("response_to").value(event.response_to->toString());
  j.key("tags").beginObject();
  for (const auto& [k, v] : event.tags) j.key(k).value(v);
  j.endObject();
  j.key("sender").beginObject();
  j.key("uid").value(event.sender.uid);
  j.key("pid").value(event.sender.pid);
  j.key("agent").value(event.sender.agent);
  j.key("credentials_known").value(event.sender.credentials_known);
  j.key("uid_known").value(event.sender.uid_known);
  j.endObject();
  if (isValidUtf8(event.payload)) {
    j.key("payload").value(event.payload);
    j.key("payload_encoding").value("utf-8");
  } else {
    j.key("payload").value(base64(event.payload));
    j.key("payload_encoding").value("base64");
  }
  j.endObject();
  return j.str();
}

std::string missedJson(uint64_t missed) {
  JsonWriter j;
  j.beginObject().key("missed").value(missed).endObject();
  return j.str();
}

}  // namespace ftb::cli
