#include "components/launcher_bridge/lists.h"

namespace ftb::launcher {

std::string rankList(const std::vector<int>& ranks) {
  std::vector<std::string> items;
  for (int r : ranks) items.push_back(std::to_string(r));
  return joinList(items);
}

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace ftb::launcher
