// Events and sequence lists for the tree unit tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/tree/tree_types.h"

namespace ftb::tree::testing {

inline TreeEvent ev(uint64_t seq, std::string publisher = "p", std::string space = "FTB.X") {
  return {std::move(publisher), seq, std::move(space), false, nullptr};
}

inline std::vector<uint64_t> seqs(const std::vector<TreeEvent>& events) {
  std::vector<uint64_t> out;
  for (const auto& e : events) out.push_back(e.seq);
  return out;
}

}  // namespace ftb::tree::testing
