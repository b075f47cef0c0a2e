// Puts events from other agents back in publish order before they reach local
// subscribers. After a repair a replay can fill a gap after newer events have
// arrived by the new path; those wait here (up to a timeout) for the gap.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/tree/tree_types.h"

namespace ftb::tree {

class LocalOrder {
 public:
  explicit LocalOrder(Nanos hold_timeout) : hold_timeout_(hold_timeout) {}

  // Appends to `ready` what can be delivered now, in order. An event older
  // than the first one delivered from its publisher predates local interest
  // and is skipped.
  void arrive(const TreeEvent& event, Nanos now, std::vector<TreeEvent>& ready);
  // Gives up on gaps older than the timeout: what waited behind them is
  // appended to `ready`; returns how many events were never filled in.
  uint64_t expire(Nanos now, std::vector<TreeEvent>& ready);
  std::size_t held() const;

 private:
  struct Stream {
    uint64_t first = 0;  // first sequence delivered
    uint64_t next = 0;   // next sequence due
    std::map<uint64_t, TreeEvent> waiting;
    Nanos waiting_since{0};
    Nanos updated{0};
  };
  void drain(Stream& s, std::vector<TreeEvent>& ready);
  Nanos hold_timeout_;
  std::unordered_map<std::string, Stream> streams_;
};

}  // namespace ftb::tree
