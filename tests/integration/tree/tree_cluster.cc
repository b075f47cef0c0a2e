#include "tests/integration/tree/tree_cluster.h"

#include <sstream>

#include "tests/integration/raw_peer.h"

namespace ftb::testing {

std::optional<proto::TreeInfo> queryTree(const std::string& endpoint,
                                         std::chrono::milliseconds timeout) {
  RawPeer peer(endpoint);
  proto::Envelope query;
  query.mutable_tree_query();
  auto answer = peer.call(query, timeout);
  if (!answer || !answer->has_tree_info()) return std::nullopt;
  return answer->tree_info();
}

TreeCluster::TreeCluster(Options options) : options_(options) {
  std::vector<std::string> seeds;
  for (int i = 0; i < options.agents; ++i) {
    std::vector<std::string> flags = {
        "--name", "agent" + std::to_string(i),
        "--tree-fan-out", std::to_string(options.fan_out),
        "--tree-heartbeat-ms", std::to_string(options.heartbeat_ms),
        "--tree-timeout-ms", std::to_string(options.timeout_ms)};
    if (!seeds.empty()) {
      std::string list;
      for (const auto& s : seeds) list += (list.empty() ? "" : ",") + s;
      flags.insert(flags.end(), {"--tree-seeds", list});
    }
    agents_.push_back(std::make_unique<AgentProcess>(flags));
    alive_.push_back(true);
    if (i < options.seeds) seeds.push_back(agents_.back()->tcpEndpoint());
  }
}

void TreeCluster::kill(int i) {
  agents_[i]->kill();
  alive_[i] = false;
}

void TreeCluster::restart(int i) {
  agents_[i]->restart();
  alive_[i] = true;
}

std::vector<std::optional<proto::TreeInfo>> TreeCluster::infos() {
  std::vector<std::optional<proto::TreeInfo>> out(agents_.size());
  for (int i = 0; i < size(); ++i) {
    if (alive_[i]) out[i] = queryTree(agents_[i]->tcpEndpoint());
  }
  return out;
}

int TreeCluster::indexOf(const std::string& tree_address) const {
  for (int i = 0; i < size(); ++i) {
    if (agents_[i]->tcpEndpoint() == tree_address) return i;
  }
  return -1;
}

std::string TreeCluster::checkOneTree() {
  std::ostringstream why;
  auto all = infos();
  int live = 0, roots = 0;
  std::string root;
  for (int i = 0; i < size(); ++i) {
    if (!alive_[i]) continue;
    ++live;
    if (!all[i]) return "agent" + std::to_string(i) + " does not answer";
    const proto::TreeInfo& t = *all[i];
    if (t.state() != "attached" && t.state() != "root") return "agent" + std::to_string(i) + " is " + t.state();
    if (t.path().empty()) return "agent" + std::to_string(i) + " has no path";
    if (root.empty()) root = t.path(0).address();
    if (t.path(0).address() != root) {
      why << "agent" << i << " has root " << t.path(0).address() << ", another has " << root;
      return why.str();
    }
    int children = 0;
    for (const auto& l : t.links()) children += l.is_parent() ? 0 : 1;
    if (children > static_cast<int>(options_.fan_out)) {
      why << "agent" << i << " has " << children << " children, fan-out " << options_.fan_out;
      return why.str();
    }
    if (t.state() == "root") ++roots;
  }
  if (roots != 1) return std::to_string(roots) + " roots";
  const auto& r = *all[indexOf(root)];
  uint32_t counted = 1;
  for (const auto& l : r.links()) counted += l.subtree_size();
  if (static_cast<int>(counted) != live) {
    why << "the root counts " << counted << " agents, " << live << " are alive";
    return why.str();
  }
  return "";
}

std::string TreeCluster::waitForOneTree(std::chrono::milliseconds timeout) {
  std::string last;
  waitFor([&] { return (last = checkOneTree()).empty(); }, timeout);
  return last;
}

int TreeCluster::root() {
  auto all = infos();
  for (int i = 0; i < size(); ++i) {
    if (all[i] && all[i]->state() == "root") return i;
  }
  return -1;
}

std::vector<int> TreeCluster::interior() {
  std::vector<int> out;
  auto all = infos();
  for (int i = 0; i < size(); ++i) {
    if (!all[i] || all[i]->state() != "attached") continue;
    for (const auto& l : all[i]->links()) {
      if (!l.is_parent()) {
        out.push_back(i);
        break;
      }
    }
  }
  return out;
}

}  // namespace ftb::testing
