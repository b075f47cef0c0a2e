#include "tests/integration/tree/tree_cluster.h"

#include <algorithm>
#include <stdexcept>

#include "cli/tree_health.h"
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
        "--tree-fan-out", std::to_string(options.fan_out)};
    if (options.heartbeat_ms > 0) {
      flags.insert(flags.end(), {"--tree-heartbeat-ms", std::to_string(options.heartbeat_ms)});
    }
    if (options.timeout_ms > 0) {
      flags.insert(flags.end(), {"--tree-timeout-ms", std::to_string(options.timeout_ms)});
    }
    flags.insert(flags.end(), options.extra_flags.begin(), options.extra_flags.end());
    if (!seeds.empty()) {
      std::string list;
      for (const auto& s : seeds) list += (list.empty() ? "" : ",") + s;
      flags.insert(flags.end(), {"--tree-seeds", list});
    }
    agents_.push_back(std::make_unique<AgentProcess>(flags));
    alive_.push_back(true);
    if (options.join_in_order && i >= options.seeds) {
      const std::string endpoint = agents_.back()->tcpEndpoint();
      const bool joined = waitFor(
          [&] {
            const std::optional<proto::TreeInfo> info = queryTree(endpoint);
            return info && info->path_size() >= 2;
          },
          std::chrono::seconds(20));
      if (!joined) throw std::runtime_error("agent" + std::to_string(i) + " did not join the tree in 20 s");
    }
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

std::vector<int> TreeCluster::chain(std::chrono::milliseconds timeout) {
  std::vector<int> order;
  const bool found = waitFor(
      [&] {
        const auto all = infos();
        order.assign(size(), -1);
        int live = 0;
        for (int i = 0; i < size(); ++i) {
          if (!alive_[i]) continue;
          ++live;
          if (!all[i]) return false;
          const int depth = all[i]->path_size();
          if (depth < 1 || depth > size() || order[depth - 1] >= 0) return false;
          order[depth - 1] = i;
        }
        order.resize(live);
        return std::find(order.begin(), order.end(), -1) == order.end();
      },
      timeout);
  if (!found) order.clear();
  return order;
}

int TreeCluster::indexOf(const std::string& tree_address) const {
  for (int i = 0; i < size(); ++i) {
    if (agents_[i]->tcpEndpoint() == tree_address) return i;
  }
  return -1;
}

std::string TreeCluster::checkOneTree() {
  return cli::oneTreeProblem(infos(), alive_, options_.fan_out);
}

std::string TreeCluster::waitForOneTree(std::chrono::milliseconds timeout) {
  std::string last;
  waitFor([&] { return (last = checkOneTree()).empty(); }, timeout);
  return last;
}

int TreeCluster::root() { return cli::rootOf(infos()); }

std::vector<int> TreeCluster::interior() { return cli::interiorOf(infos()); }

}  // namespace ftb::testing
