#include "components/mpi_bridge/placement.h"

#include <algorithm>
#include <deque>
#include <map>

namespace ftb::mpi_bridge {

Groups groupsFromTable(const std::vector<int>& group_of) {
  Groups g;
  g.group_of = group_of;
  g.position.assign(group_of.size(), 0);
  for (int r = 0; r < static_cast<int>(group_of.size()); ++r) {
    if (group_of[r] >= static_cast<int>(g.members.size())) g.members.resize(group_of[r] + 1);
    g.position[r] = static_cast<int>(g.members[group_of[r]].size());
    g.members[group_of[r]].push_back(r);
  }
  return g;
}

Groups formGroups(const std::vector<std::string>& domain_of_rank, int group_size) {
  // Ranks of each domain, domains in order of first appearance.
  std::vector<std::string> domains;
  std::map<std::string, std::deque<int>> remaining;
  for (int r = 0; r < static_cast<int>(domain_of_rank.size()); ++r) {
    if (!remaining.count(domain_of_rank[r])) domains.push_back(domain_of_rank[r]);
    remaining[domain_of_rank[r]].push_back(r);
  }
  std::vector<std::vector<int>> groups;
  std::vector<int> leftovers;
  for (;;) {
    std::vector<std::string> live;
    for (const auto& d : domains) {
      if (!remaining[d].empty()) live.push_back(d);
    }
    if (live.empty()) break;
    if (live.size() == 1) {  // cannot pair these with another domain any more
      for (int r : remaining[live[0]]) leftovers.push_back(r);
      remaining[live[0]].clear();
      break;
    }
    // The domains with the most ranks left go first, so they do not end up alone.
    std::stable_sort(live.begin(), live.end(), [&](const std::string& a, const std::string& b) {
      return remaining[a].size() > remaining[b].size();
    });
    std::vector<int> group;
    for (int i = 0; i < static_cast<int>(live.size()) && i < group_size; ++i) {
      group.push_back(remaining[live[i]].front());
      remaining[live[i]].pop_front();
    }
    groups.push_back(group);
  }
  for (int r : leftovers) {
    int best = -1;
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
      bool has_domain = std::any_of(groups[g].begin(), groups[g].end(),
                                    [&](int m) { return domain_of_rank[m] == domain_of_rank[r]; });
      if (!has_domain && (best < 0 || groups[g].size() < groups[best].size())) best = g;
    }
    if (best >= 0) {
      groups[best].push_back(r);
    } else {
      groups.push_back({r});
    }
  }
  std::vector<int> group_of(domain_of_rank.size());
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    for (int r : groups[g]) group_of[r] = g;
  }
  return groupsFromTable(group_of);
}

}  // namespace ftb::mpi_bridge
