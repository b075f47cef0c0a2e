// Validation and normalisation of event spaces (namespaces) and event names.
// Both are case-insensitive and travel in upper case.
//
// Event space: 1 to 16 dot-separated segments of [A-Za-z0-9_-], each 1 to 64
// characters, at most 255 in all, e.g. "FTB.MPI.OPENMPI".
// Event name: 1 to 128 characters of [A-Za-z0-9_.-], e.g. "FTB_MPI_PROCS_DEAD".
#pragma once

#include <string>
#include <string_view>

#include "client/status.h"

namespace ftb {

inline constexpr std::size_t kMaxEventSpaceLength = 255;
inline constexpr std::size_t kMaxEventSpaceSegments = 16;
inline constexpr std::size_t kMaxSegmentLength = 64;
inline constexpr std::size_t kMaxEventNameLength = 128;

// Returns the upper-case form, or kInvalidArgument naming what is wrong.
Result<std::string> normalizeEventSpace(std::string_view event_space);
Result<std::string> normalizeEventName(std::string_view event_name);

std::string toUpper(std::string_view text);

}  // namespace ftb
