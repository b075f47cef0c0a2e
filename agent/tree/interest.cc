#include "agent/tree/interest.h"

#include <algorithm>

namespace ftb::tree {

Interest unionOf(const std::vector<const Interest*>& parts) {
  Interest all;
  for (const Interest* part : parts) all.insert(all.end(), part->begin(), part->end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

bool grows(const Interest& before, const Interest& after) {
  return !std::includes(before.begin(), before.end(), after.begin(), after.end());
}

void InterestMatcher::assign(Interest interest) {
  interest_ = std::move(interest);
  filters_.clear();
  cache_.clear();
  everything_ = false;
  for (const std::string& text : interest_) {
    Result<Filter> filter = Filter::parse(text);
    if (!filter.ok() || filter->eventSpaceText().empty()) {
      everything_ = true;
      continue;
    }
    filters_.push_back(std::move(*filter));
  }
}

bool InterestMatcher::matches(const std::string& event_space) const {
  if (everything_) return true;
  if (filters_.empty()) return false;
  auto [it, fresh] = cache_.try_emplace(event_space, false);
  if (fresh) {
    it->second = std::any_of(filters_.begin(), filters_.end(), [&](const Filter& f) {
      return f.matchesEventSpace(event_space);
    });
  }
  return it->second;
}

}  // namespace ftb::tree
