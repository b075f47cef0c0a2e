// The live topology as `ftbctl tree` sees it: starting from the root named by
// one agent, every agent is asked for its TreeInfo and its children are
// followed, level by level. What the agents say is kept as is; what they
// disagree about is noted on the agent it concerns.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::cli {

// Above this silence (ms) on the link from its parent an agent counts as "silent":
// a few missed heartbeats at the agents' default 200 ms interval.
inline constexpr int64_t kSilentAfterMs = 500;

struct CrawledAgent {
  proto::TreeNodeRef ref;               // as its parent (or the first agent's path) named it
  std::optional<proto::TreeInfo> info;  // nullopt: it did not answer
  std::string error;                    // why it did not answer
  int parent = -1;                      // index in TreeCrawl::agents; -1 for a root
  std::vector<int> children;
  int depth = 0;
  int duplicate_of = -1;  // >= 0: reached a second time (a cycle); not asked again
  // The parent's view of the link to this agent.
  int64_t rtt_us = -1;
  int64_t silent_for_ms = -1;
  std::vector<std::string> problems;  // inconsistencies, one sentence each

  bool answered() const { return info.has_value(); }
  // "ok", or the words that apply: unreachable, silent, lost-events, disagrees, cycle.
  std::vector<std::string> health() const;
  bool healthy() const { return health() == std::vector<std::string>{"ok"}; }
  // Agents below it by its own account (itself included); 0 when unknown.
  uint32_t subtreeSize() const;
};

struct TreeCrawl {
  std::vector<CrawledAgent> agents;  // breadth first; each root's tree in order
  std::vector<int> roots;
  std::string note;  // when there is no tree to crawl (disabled, still joining)

  // Agents counted once each (cycle entries are not).
  std::size_t distinctAgents() const;
  std::size_t unanswered() const;
  std::size_t problems() const;
  bool complete() const { return unanswered() == 0 && problems() == 0 && roots.size() <= 1; }
};

// Answers for a batch of endpoints, in order (tree_query.h in production).
using TreeInfoQuery =
    std::function<std::vector<Result<proto::TreeInfo>>(const std::vector<std::string>& endpoints)>;

// Crawls the tree(s) reachable from what the first agent (already asked) said.
TreeCrawl crawlTree(const proto::TreeInfo& first, const TreeInfoQuery& query);

}  // namespace ftb::cli
