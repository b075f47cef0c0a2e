// Whether what a set of agents say about themselves describes one settled
// tree. Tests and benchmarks that start agents wait on this before measuring.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/ftb.pb.h"

namespace ftb::cli {

struct AgentAnswer {
  std::string name;                     // used in the problem text
  std::optional<proto::TreeInfo> info;  // nullopt: it did not answer
};

// "" when every agent answered and is attached (or the root), all paths start
// at one root, the root counts every agent in its subtree, and no agent has
// more than `fan_out` children. Otherwise the first problem found, in words.
std::string oneTreeProblem(const std::vector<AgentAnswer>& live_agents, uint32_t fan_out);

// The same for agents numbered by index ("agent<i>"), where answers[i] is
// agent i's answer and alive[i] says whether it should have answered.
using IndexedAnswers = std::vector<std::optional<proto::TreeInfo>>;
std::string oneTreeProblem(const IndexedAnswers& answers, const std::vector<bool>& alive,
                           uint32_t fan_out);
// Index of the agent that says it is the root; -1 when none does.
int rootOf(const IndexedAnswers& answers);
// Indices of attached agents with children (the root is not among them).
std::vector<int> interiorOf(const IndexedAnswers& answers);

}  // namespace ftb::cli
