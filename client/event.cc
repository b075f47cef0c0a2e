#include "client/event.h"

#include <charconv>
#include <vector>

namespace ftb {
namespace {

char lowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  }
  return true;
}

// Reads a whole field as an unsigned integer of type T: no sign, no spaces, no overflow.
template <typename T>
Result<T> parseField(std::string_view text, std::string_view field, std::string_view whole,
                     std::string_view type_name) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return invalidArgument("event id '" + std::string(whole) + "': " + std::string(field) + " '" +
                           std::string(text) + "' is not an unsigned " + std::string(type_name) +
                           " integer");
  }
  return value;
}

}  // namespace

Result<Severity> parseSeverity(std::string_view text) {
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kError, Severity::kFatal}) {
    if (equalsIgnoreCase(text, severityName(s))) return s;
  }
  return invalidArgument("severity '" + std::string(text) +
                         "' is not one of info, warning, error, fatal");
}

std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "INFO";
    case Severity::kWarning: return "WARNING";
    case Severity::kError: return "ERROR";
    case Severity::kFatal: return "FATAL";
  }
  return "UNKNOWN";
}

std::string EventId::toString() const { return publisherKey() + "/" + std::to_string(seq); }

std::string EventId::publisherKey() const {
  return host + "/" + std::to_string(pid) + "/" + std::to_string(process_start_ns) + "/" +
         std::to_string(client_instance);
}

std::string sequenceKey(std::string publisher_key, bool credentials_known, std::string_view agent) {
  if (credentials_known) return publisher_key;
  // Host names never contain '@', nor '/' (parse() splits on it).
  publisher_key += '@';
  publisher_key += agent;
  return publisher_key;
}

// Host names never contain '/', so the text splits into exactly five fields.
Result<EventId> EventId::parse(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = text.find('/', start);
    fields.push_back(text.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (fields.size() != 5) {
    return invalidArgument("event id '" + std::string(text) +
                           "': expected host/pid/process_start_ns/client_instance/seq "
                           "(5 fields separated by '/'), got " +
                           std::to_string(fields.size()));
  }
  if (fields[0].empty()) {
    return invalidArgument("event id '" + std::string(text) + "': host is empty");
  }
  auto pid = parseField<uint32_t>(fields[1], "pid", text, "32-bit");
  if (!pid) return pid.status();
  auto start_ns = parseField<uint64_t>(fields[2], "process_start_ns", text, "64-bit");
  if (!start_ns) return start_ns.status();
  auto instance = parseField<uint32_t>(fields[3], "client_instance", text, "32-bit");
  if (!instance) return instance.status();
  auto seq = parseField<uint64_t>(fields[4], "seq", text, "64-bit");
  if (!seq) return seq.status();
  return EventId{.host = std::string(fields[0]),
                 .pid = *pid,
                 .process_start_ns = *start_ns,
                 .client_instance = *instance,
                 .seq = *seq};
}

}  // namespace ftb
