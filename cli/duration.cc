#include "cli/duration.h"

#include <cmath>
#include <limits>
#include <string>

namespace ftb::cli {
namespace {

using std::chrono::nanoseconds;

constexpr std::string_view kUnitsHelp = "units: ns, us, ms, s, m, h, d, e.g. 500ms, 20s, 2m, 1h30m";

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Nanoseconds in one `unit`; 0 when it is not a unit.
long double unitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  if (unit == "m") return 60e9;
  if (unit == "h") return 3600e9;
  if (unit == "d") return 86400e9;
  return 0;
}

// Reads "123" or "1.5" at `pos`; nullopt-like false when there is no number there.
bool readNumber(std::string_view text, std::size_t& pos, long double& value) {
  const std::size_t start = pos;
  long double whole = 0;
  while (pos < text.size() && isDigit(text[pos])) whole = whole * 10 + (text[pos++] - '0');
  const bool had_whole = pos > start;
  long double fraction = 0, scale = 1;
  bool had_fraction = false;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && isDigit(text[pos])) {
      scale /= 10;
      fraction += (text[pos++] - '0') * scale;
      had_fraction = true;
    }
  }
  value = whole + fraction;
  return had_whole || had_fraction;
}

Result<nanoseconds> toNanos(long double ns, std::string_view text) {
  if (!(ns <= static_cast<long double>(std::numeric_limits<int64_t>::max()))) {
    return invalidArgument("duration '" + std::string(text) + "' is too long");
  }
  return nanoseconds(static_cast<int64_t>(std::llround(ns)));
}

// Days since 1970-01-01 of a proleptic Gregorian date (no time zone involved).
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leapYear(y) ? 29 : kDays[m - 1];
}

}  // namespace

Result<nanoseconds> parseDuration(std::string_view text, PlainNumber plain) {
  const std::string quoted = "'" + std::string(text) + "'";
  if (text.empty()) return invalidArgument("empty duration; " + std::string(kUnitsHelp));
  std::size_t pos = 0;
  long double total = 0;
  bool first = true;
  while (pos < text.size()) {
    long double value;
    if (!readNumber(text, pos, value)) {
      return invalidArgument(quoted + " is not a duration: expected a number at '" +
                             std::string(text.substr(pos)) + "' (" + std::string(kUnitsHelp) + ")");
    }
    std::size_t unit_end = pos;
    while (unit_end < text.size() && !isDigit(text[unit_end]) && text[unit_end] != '.') {
      ++unit_end;
    }
    const std::string_view unit = text.substr(pos, unit_end - pos);
    if (unit.empty()) {
      if (!first || plain == PlainNumber::kRefused) {
        return invalidArgument(quoted + " has a number without a unit; " + std::string(kUnitsHelp));
      }
      // A bare number: what the option always meant.
      return toNanos(value * (plain == PlainNumber::kMillis ? 1e6L : 1e9L), text);
    }
    const long double per_unit = unitNanos(unit);
    if (per_unit == 0) {
      return invalidArgument("unknown unit '" + std::string(unit) + "' in " + quoted + "; " +
                             std::string(kUnitsHelp));
    }
    total += value * per_unit;
    pos = unit_end;
    first = false;
  }
  return toNanos(total, text);
}

Result<UnixNanos> parseRfc3339(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  const auto bad = [&](const std::string& why) -> Status {
    return invalidArgument(quoted + " is not an RFC 3339 time (e.g. 2026-11-25T16:00:00Z or " +
                           "2026-11-25T17:00:00.5+01:00): " + why);
  };
  std::size_t pos = 0;
  // Exactly `digits` decimal digits at pos.
  const auto number = [&](int digits, int& out) {
    if (pos + digits > text.size()) return false;
    out = 0;
    for (int i = 0; i < digits; ++i) {
      if (!isDigit(text[pos + i])) return false;
      out = out * 10 + (text[pos + i] - '0');
    }
    pos += digits;
    return true;
  };
  const auto literal = [&](std::string_view chars) {
    if (pos < text.size() && chars.find(text[pos]) != std::string_view::npos) {
      ++pos;
      return true;
    }
    return false;
  };
  int year, month, day, hour, minute, second;
  if (!number(4, year) || !literal("-") || !number(2, month) || !literal("-") || !number(2, day)) {
    return bad("the date must read YYYY-MM-DD");
  }
  if (!literal("Tt ")) return bad("a 'T' and the time of day must follow the date");
  if (!number(2, hour) || !literal(":") || !number(2, minute) || !literal(":") ||
      !number(2, second)) {
    return bad("the time of day must read HH:MM:SS");
  }
  if (month < 1 || month > 12) return bad("month " + std::to_string(month) + " does not exist");
  if (day < 1 || day > daysInMonth(year, month)) {
    return bad("day " + std::to_string(day) + " does not exist in that month");
  }
  if (hour > 23 || minute > 59 || second > 60) return bad("the time of day is out of range");
  int64_t nanos = 0;
  if (literal(".")) {
    int digits = 0;
    int64_t scale = 100'000'000;
    while (pos < text.size() && isDigit(text[pos])) {
      if (digits++ < 9) nanos += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (digits == 0) return bad("a digit must follow the '.'");
  }
  int offset_s = 0;
  if (literal("Zz")) {
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos++] == '-' ? -1 : 1;
    int off_h, off_m;
    if (!number(2, off_h) || !literal(":") || !number(2, off_m) || off_h > 23 || off_m > 59) {
      return bad("the UTC offset must read +HH:MM or -HH:MM");
    }
    offset_s = sign * (off_h * 3600 + off_m * 60);
  } else {
    return bad("it needs a time zone: 'Z' for UTC or an offset like +01:00");
  }
  if (pos != text.size())
    return bad("unexpected '" + std::string(text.substr(pos)) + "' at the end");
  const int64_t seconds =
      daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return seconds * 1'000'000'000 + nanos;
}

Result<UnixNanos> parseTimeBound(std::string_view text, UnixNanos now) {
  // A date starts with four digits and a '-'; a duration never has a '-'.
  if (text.size() > 4 && text[4] == '-') return parseRfc3339(text);
  Result<nanoseconds> ago = parseDuration(text, PlainNumber::kRefused);
  if (!ago.ok()) {
    return invalidArgument("'" + std::string(text) +
                           "' is neither a duration with a unit meaning that long ago (10m, 2h, "
                           "90s) nor an RFC 3339 time (2026-11-25T16:00:00Z): " +
                           ago.status().message());
  }
  return now - ago->count();
}

}  // namespace ftb::cli
