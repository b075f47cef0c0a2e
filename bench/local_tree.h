// A tree of real ftb-agent processes on loopback for the tree benchmark:
// started through bench's AgentRunner, inspected with ftbctl's TreeQuery.
//
//   auto tree = LocalTree::start(binary, {.agents = 33, .fan_out = 8});
//   if (auto why = (*tree)->waitForOneTree(20s); !why.empty()) ...
//   (*tree)->agent((*tree)->root()).ipcEndpoint();
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::bench {

class LocalTree {
 public:
  struct Options {
    int agents = 15;
    uint32_t fan_out = 8;
    uint32_t heartbeat_ms = 50;  // the agent's defaults
    uint32_t timeout_ms = 150;
    std::string keep_logs_in;  // when set, agent i's log is copied to <dir>/agent<i>.log at the end
  };

  // Starts the agents one after another. Each agent's only seed is agent
  // (i - 1) / fan_out, which has room for it: the tree is a complete
  // fan_out-ary tree rooted at agent 0, of known depth.
  static Result<std::unique_ptr<LocalTree>> start(const std::string& binary, Options options);
  ~LocalTree();  // stops the agents (keeping their logs if asked)

  int size() const { return static_cast<int>(agents_.size()); }
  AgentRunner& agent(int i) { return *agents_[i]; }
  bool alive(int i) const { return agents_[i]->pid() > 0; }
  void kill(int i) { agents_[i]->kill(); }

  // Waits until every live agent answers, all share one root and the root
  // counts them all. "" when so, else what was still wrong at the deadline.
  std::string waitForOneTree(std::chrono::milliseconds timeout);

  // Each live agent's view (nullopt for dead or silent ones), asked in parallel.
  std::vector<std::optional<proto::TreeInfo>> infos();
  int indexOf(const std::string& tree_address) const;
  int root();
  // Distance from the root (0 = root), -1 when unknown.
  std::vector<int> depths();
  // Live agents that have children, the root excepted.
  std::vector<int> interior();
  // Re-attachments so far, summed over the live agents (TreeInfo.repairs).
  uint64_t repairs();

 private:
  std::string checkOneTree();
  Options options_;
  std::vector<std::unique_ptr<AgentRunner>> agents_;
};

}  // namespace ftb::bench
