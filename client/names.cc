#include "client/names.h"

#include <cstdio>

namespace ftb {
namespace {

bool isNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// 'x', or '\xNN' for bytes that would not print.
std::string quoteChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "'\\x%02x'", u);
  return buf;
}

std::string tooLong(std::size_t size, std::size_t limit) {
  return " is " + std::to_string(size) + " characters; the limit is " + std::to_string(limit);
}

}  // namespace

std::string toUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

Result<std::string> normalizeEventSpace(std::string_view event_space) {
  // Messages are built only on failure: this runs for every published event.
  auto what = [&] { return "event space '" + cutForMessage(event_space) + "'"; };
  if (event_space.empty()) return invalidArgument("event space is empty");
  if (event_space.size() > kMaxEventSpaceLength) {
    return invalidArgument(what() + tooLong(event_space.size(), kMaxEventSpaceLength));
  }
  std::size_t start = 0;
  for (std::size_t n = 1;; ++n) {
    if (n > kMaxEventSpaceSegments) {
      return invalidArgument(what() + " has more than " + std::to_string(kMaxEventSpaceSegments) +
                             " segments");
    }
    std::size_t dot = event_space.find('.', start);
    std::string_view seg =
        event_space.substr(start, dot == std::string_view::npos ? dot : dot - start);
    auto where = [&] { return what() + ": segment " + std::to_string(n); };
    if (seg.empty()) return invalidArgument(where() + " is empty");
    if (seg.size() > kMaxSegmentLength) {
      return invalidArgument(where() + " '" + cutForMessage(seg) + "'" +
                             tooLong(seg.size(), kMaxSegmentLength));
    }
    for (char c : seg) {
      if (!isNameChar(c)) {
        return invalidArgument(where() + " '" + std::string(seg) + "' has invalid character " +
                               quoteChar(c) + "; use letters, digits, '_' and '-'");
      }
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return toUpper(event_space);
}

Result<std::string> normalizeEventName(std::string_view event_name) {
  if (event_name.empty()) return invalidArgument("event name is empty");
  auto what = [&] { return "event name '" + cutForMessage(event_name) + "'"; };
  if (event_name.size() > kMaxEventNameLength) {
    return invalidArgument(what() + tooLong(event_name.size(), kMaxEventNameLength));
  }
  for (char c : event_name) {
    if (!isNameChar(c) && c != '.') {
      return invalidArgument(what() + " has invalid character " + quoteChar(c) +
                             "; use letters, digits, '_', '.' and '-'");
    }
  }
  return toUpper(event_name);
}

}  // namespace ftb
