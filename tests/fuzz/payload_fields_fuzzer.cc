// Fuzzes the payload text of events (client/payload_fields.h), which any
// publisher writes and consumers (ftb-run's rules, ftbctl) read back.
// Properties: what parsePayload accepts, formatPayload writes back in a form
// parsePayload reads to the same fields; formatPayload stays within its limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/payload_fields.h"

namespace {

// Keys formatPayload can write unambiguously (it does not quote keys), and
// values it keeps as they are (it turns tabs and newlines into spaces).
bool roundTrips(const ftb::ParsedPayload& parsed) {
  if (parsed.head.find_first_of(" \t\n") != std::string::npos) return false;
  for (const auto& [key, value] : parsed.fields) {
    if (key.empty() || key.find_first_of(" \t\n\"\\=") != std::string::npos) return false;
    if (value.find_first_of("\t\n") != std::string::npos) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  for (std::string_view key : {"state", "sensor", "reading", "", "="}) {
    (void)ftb::payloadField(payload, key);
  }
  ftb::Result<ftb::ParsedPayload> parsed = ftb::parsePayload(payload);
  if (!parsed.ok()) return 0;

  const ftb::PayloadFields fields(parsed->fields.begin(), parsed->fields.end());
  if (ftb::formatPayload(parsed->head, fields).size() > ftb::kMaxPayloadBytes) std::abort();
  if (!roundTrips(*parsed)) return 0;
  const std::string again = ftb::formatPayload(parsed->head, fields, SIZE_MAX);
  ftb::Result<ftb::ParsedPayload> reparsed = ftb::parsePayload(again);
  if (!reparsed.ok() || reparsed->head != parsed->head || reparsed->fields != parsed->fields) {
    std::abort();
  }
  return 0;
}
