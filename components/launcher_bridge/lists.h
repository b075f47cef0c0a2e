// The comma lists that travel in event tags, the command line and the
// runtime's environment ("2,3", "n1,n4"): one way to write and read them.
#pragma once

#include <string>
#include <vector>

namespace ftb::launcher {

// "2,3"
std::string rankList(const std::vector<int>& ranks);
// Any range of strings: {"n1", "n4"} -> "n1,n4".
template <class Strings>
std::string joinList(const Strings& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + std::string(item);
  return out;
}
// The non-empty items of `text` between `separator`s: "n1,,n2" -> {"n1", "n2"}.
std::vector<std::string> splitList(const std::string& text, char separator = ',');

}  // namespace ftb::launcher
