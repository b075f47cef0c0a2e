// "Did you mean ...?" for mistyped subcommands and options: the known word
// closest to what was typed, when it is close enough to be a likely typo.
//
//   closestMatch("stauts", {"status", "clients", ...})  -> "status"
//   closestMatch("frobnicate", {...})                   -> "" (nothing close)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ftb::cli {

// Edits (insert, delete, substitute, swap two neighbours) turning a into b.
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate with the fewest edits from `typed` (the first on a tie), if at
// most max(1, length/3) edits away, or one that starts with `typed` (at least
// two characters besides leading dashes); "" otherwise. Case is ignored.
std::string closestMatch(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace ftb::cli
