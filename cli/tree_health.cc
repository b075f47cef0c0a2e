#include "cli/tree_health.h"

namespace ftb::cli {

std::string oneTreeProblem(const std::vector<AgentAnswer>& live_agents, uint32_t fan_out) {
  std::string root;
  const proto::TreeInfo* root_info = nullptr;
  int roots = 0;
  for (const auto& [name, info] : live_agents) {
    if (!info) return name + " does not answer";
    if (info->state() != "attached" && info->state() != "root") return name + " is " + info->state();
    if (info->path().empty()) return name + " has no path";
    if (root.empty()) root = info->path(0).address();
    if (info->path(0).address() != root) {
      return name + " has root " + info->path(0).address() + ", another has " + root;
    }
    uint32_t children = 0;
    for (const auto& l : info->links()) children += l.is_parent() ? 0 : 1;
    if (children > fan_out) {
      return name + " has " + std::to_string(children) + " children, fan-out " +
             std::to_string(fan_out);
    }
    if (info->state() == "root") ++roots, root_info = &*info;
  }
  if (roots != 1) return std::to_string(roots) + " roots";
  uint32_t counted = 1;
  for (const auto& l : root_info->links()) counted += l.subtree_size();
  if (counted != live_agents.size()) {
    return "the root counts " + std::to_string(counted) + " agents, " +
           std::to_string(live_agents.size()) + " are alive";
  }
  return "";
}

std::string oneTreeProblem(const IndexedAnswers& answers, const std::vector<bool>& alive,
                           uint32_t fan_out) {
  std::vector<AgentAnswer> live;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (alive[i]) live.push_back({"agent" + std::to_string(i), answers[i]});
  }
  return oneTreeProblem(live, fan_out);
}

int rootOf(const IndexedAnswers& answers) {
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] && answers[i]->state() == "root") return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> interiorOf(const IndexedAnswers& answers) {
  std::vector<int> out;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i] || answers[i]->state() != "attached") continue;
    for (const auto& l : answers[i]->links()) {
      if (!l.is_parent()) {
        out.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return out;
}

}  // namespace ftb::cli
