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
                                           const std::map<std::string, std::string>& states,
                                           const std::set<std::string>& emptied) {
  auto stateOf = [&](const std::string& node) {
    auto it = states.find(node);
    return it == states.end() ? std::string() : it->second;
  };
  std::set<std::string> taken(node_of_rank.begin(), node_of_rank.end());
  std::map<std::string, std::string> spare_of;  // a node's replacements go to one spare together
  for (int rank : lost) {
    std::string& node = node_of_rank[static_cast<std::size_t>(rank)];
    if (stateOf(node) != kNodeSuspect && !emptied.count(node)) continue;
    if (auto it = spare_of.find(node); it != spare_of.end()) {
      node = it->second;
      continue;
    }
    auto spare = std::find_if(spares.begin(), spares.end(), [&](const std::string& s) {
      return !s.empty() && !taken.count(s) && stateOf(s) != kNodeSuspect;
    });
    if (spare == spares.end()) continue;
    spare_of[node] = *spare;
    taken.insert(*spare);
    node = *spare;
  }
  return node_of_rank;
}

bool nodesAreMachines(const std::vector<std::string>& node_of_rank, const std::vector<std::string>& host_of_rank) {
  return node_of_rank == host_of_rank;
}

std::set<std::string> emptiedNodes(const std::vector<int>& lost, const std::vector<std::string>& node_of_rank,
                                   const std::vector<std::string>& host_of_rank) {
  const std::set<int> gone(lost.begin(), lost.end());
  std::set<std::string> live_hosts;
  for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
    if (!gone.count(static_cast<int>(r))) live_hosts.insert(host_of_rank[r]);
  }
  std::set<std::string> emptied;
  for (int rank : lost) {
    const auto i = static_cast<std::size_t>(rank);
    if (!live_hosts.count(host_of_rank[i])) emptied.insert(node_of_rank[i]);
  }
  return emptied;
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
