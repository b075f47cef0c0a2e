#include "components/mpi_bridge/replacement_placement.h"

#include <algorithm>
#include <set>

namespace ftb::mpi_bridge {

void NodeStates::update(const std::string& node, const std::string& state) {
  std::lock_guard lock(mu_);
  states_[node] = state;
}

std::map<std::string, std::string> NodeStates::snapshot() const {
  std::lock_guard lock(mu_);
  return states_;
}

std::vector<std::string> placeReplacements(const std::vector<int>& lost, std::vector<std::string> node_of_rank,
                                           const std::vector<std::string>& spares,
                                           const std::map<std::string, std::string>& states) {
  auto stateOf = [&](const std::string& node) {
    auto it = states.find(node);
    return it == states.end() ? std::string() : it->second;
  };
  std::set<std::string> taken(node_of_rank.begin(), node_of_rank.end());
  for (int rank : lost) {
    std::string& node = node_of_rank[static_cast<std::size_t>(rank)];
    if (stateOf(node) != kNodeSuspect) continue;
    auto spare = std::find_if(spares.begin(), spares.end(), [&](const std::string& s) {
      return !s.empty() && !taken.count(s) && stateOf(s) != kNodeSuspect;
    });
    if (spare == spares.end()) continue;
    node = *spare;
    taken.insert(node);
  }
  return node_of_rank;
}

std::vector<SpawnApp> spawnApps(const std::vector<int>& lost, const std::vector<std::string>& host_of_lost) {
  std::vector<SpawnApp> apps;
  for (std::size_t i = 0; i < lost.size() && i < host_of_lost.size(); ++i) {
    auto app = std::find_if(apps.begin(), apps.end(), [&](const SpawnApp& a) { return a.host == host_of_lost[i]; });
    if (app == apps.end()) app = apps.insert(apps.end(), SpawnApp{host_of_lost[i], {}});
    app->ranks.push_back(lost[i]);
  }
  return apps;
}

}  // namespace ftb::mpi_bridge
