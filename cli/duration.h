// Durations and points in time as operators type them, for every ftbctl option
// that takes a time (--timeout-ms, watch --timeout, history --since/--until).
//
//   parseDuration("20s", PlainNumber::kSeconds)   -> 20 s
//   parseDuration("1m30s", ...)                   -> 90 s
//   parseDuration("500", PlainNumber::kMillis)    -> 500 ms  (what a bare number meant before)
//   parseDuration("10", PlainNumber::kRefused)    -> kInvalidArgument: give a unit
//   parseTimeBound("10m", now)                    -> now - 10 minutes
//   parseTimeBound("2026-11-25T16:00:00Z", now)   -> that instant (RFC 3339)
//
// Units: ns, us (or µs), ms, s, m, h, d; a number may have a fraction ("1.5s")
// and parts may follow each other ("1h30m"). Errors (kInvalidArgument) quote the
// text and say what is accepted. Pure functions; no clock is read here.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "client/status.h"

namespace ftb::cli {

// What a number without a unit means for an option: its historical unit, or
// nothing (new options require a unit, so that "10" is never a guess).
enum class PlainNumber { kRefused, kMillis, kSeconds };

// A non-negative duration, rounded to whole nanoseconds.
Result<std::chrono::nanoseconds> parseDuration(std::string_view text, PlainNumber plain);

// Nanoseconds since the Unix epoch (UTC).
using UnixNanos = int64_t;

// An RFC 3339 date-time ("2026-11-25T16:00:00Z", "...T17:00:00.5+01:00"; 't',
// 'z' and a space for 'T' accepted) or a duration with a unit meaning that
// long before `now`.
Result<UnixNanos> parseTimeBound(std::string_view text, UnixNanos now);

// The RFC 3339 half of parseTimeBound.
Result<UnixNanos> parseRfc3339(std::string_view text);

}  // namespace ftb::cli
