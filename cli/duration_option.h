// CLI11 glue for options that take a duration (cli/duration.h): a transform
// that rewrites what the operator typed ("20s", "500ms", "2m", or a plain
// number in the option's historical unit) as a plain number of that unit, so
// the option keeps its own type (int milliseconds, double seconds).
#pragma once

#include <chrono>

#include "cli/duration.h"

namespace CLI {
class Validator;
}

namespace ftb::cli {

// `unit` is kMillis (rewritten as whole milliseconds, rounded up) or kSeconds
// (rewritten as decimal seconds). Durations outside [min, max] are refused
// with a message giving the bounds.
CLI::Validator durationIn(PlainNumber unit, std::chrono::nanoseconds min,
                          std::chrono::nanoseconds max);

}  // namespace ftb::cli
