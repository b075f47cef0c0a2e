// Routing interest between agents: the event_space parts of the subscription
// filters behind a link. Severity, name and the other keys are matched only at
// the subscriber's own agent, so every event of one publisher (one namespace)
// takes the same links, and a gap in a publisher's sequence seen by an agent
// can only mean loss, never filtering.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/tree/tree_messages.h"
#include "client/filter.h"

namespace ftb::tree {

// A sorted, duplicate-free union of interests.
Interest unionOf(const std::vector<const Interest*>& parts);

// Whether `a` holds an entry `b` lacks: the side behind the link wants more.
bool grows(const Interest& before, const Interest& after);

// One link's interest, compiled; answers per namespace from a cache.
class InterestMatcher {
 public:
  // Entries that do not parse (from a newer or broken peer) match everything:
  // forwarding too much is safe, forwarding too little loses events.
  void assign(Interest interest);
  bool matches(const std::string& event_space) const;
  const Interest& interest() const { return interest_; }
  bool empty() const { return interest_.empty(); }

 private:
  Interest interest_;
  std::vector<Filter> filters_;
  bool everything_ = false;
  mutable std::unordered_map<std::string, bool> cache_;
};

}  // namespace ftb::tree
