#include "cli/duration_option.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/output.h"

namespace ftb::cli {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

std::string shown(nanoseconds d) {
  return formatDuration(std::chrono::duration_cast<milliseconds>(d).count());
}

}  // namespace

CLI::Validator durationIn(PlainNumber unit, nanoseconds min, nanoseconds max) {
  return CLI::Validator(
      [unit, min, max](std::string& value) -> std::string {
        Result<nanoseconds> d = parseDuration(value, unit);
        if (!d.ok()) return d.status().message();
        if (*d < min || *d > max) {
          return "'" + value + "' is outside " + shown(min) + " .. " + shown(max);
        }
        if (unit == PlainNumber::kMillis) {
          value = std::to_string(std::chrono::ceil<milliseconds>(*d).count());
        } else {
          char buf[64];
          std::snprintf(buf, sizeof(buf), "%.9f", static_cast<double>(d->count()) / 1e9);
          value = buf;
        }
        return {};
      },
      "");  // callers name the type DURATION; their help text says what a plain number is
}

}  // namespace ftb::cli
