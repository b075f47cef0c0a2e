// Test support: a tree of real ftb-agent processes on loopback, and queries of
// their topology through the control API (TreeQuery).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/ftb.pb.h"
#include "tests/support/agent_process.h"

namespace ftb::testing {

// The agent's view of the tree, or nullopt if it does not answer in time.
std::optional<proto::TreeInfo> queryTree(const std::string& endpoint,
                                         std::chrono::milliseconds timeout = std::chrono::milliseconds(500));

class TreeCluster {
 public:
  struct Options {
    int agents = 31;
    int seeds = 2;  // the first agents, listed as seeds by all
    uint32_t fan_out = 4;
    uint32_t heartbeat_ms = 200;  // 0: the agent's default
    uint32_t timeout_ms = 800;    // 0: the agent's default
    std::vector<std::string> extra_flags;  // for every agent
    // Each agent is started once the one before has joined the tree, so that
    // with fan-out 1 the chain is 0 - 1 - 2 ... (started together, a later
    // agent may join first and take the earlier one's place).
    bool join_in_order = false;
  };
  explicit TreeCluster(Options options);

  int size() const { return static_cast<int>(agents_.size()); }
  AgentProcess& agent(int i) { return *agents_[i]; }
  bool alive(int i) const { return alive_[i]; }
  void kill(int i);
  void restart(int i);

  // Waits until every live agent answers, all share one root and the root
  // counts them all in its subtree. Returns "" or what was still wrong.
  std::string waitForOneTree(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  std::vector<std::optional<proto::TreeInfo>> infos();
  // With fan-out 1: the live agents root first, once each answers and their
  // paths are 1, 2, ... agents long (a chain); empty if not within `timeout`.
  // A test that stops "the middle agent" takes it from here: under load a
  // late heartbeat can reorder a chain started in order (join_in_order).
  std::vector<int> chain(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  int indexOf(const std::string& tree_address) const;
  int root();
  // Live agents with children, the root excepted.
  std::vector<int> interior();

 private:
  std::string checkOneTree();
  Options options_;
  std::vector<std::unique_ptr<AgentProcess>> agents_;
  std::vector<bool> alive_;
};

}  // namespace ftb::testing
