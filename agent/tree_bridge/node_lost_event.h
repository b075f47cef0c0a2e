// FTB_NODE_LOST: the one event that says an agent, and with it most likely its
// node, is lost, published by the one neighbour the tree picks to announce it
// (tree::TopologyChange::PeerLoss::announce: its parent, or a lost root's
// oldest child). It names the node, what lived there (clients, jobs and the
// ranks the clients said at Hello) and how the loss was found, with a
// correlation id that is the same from any announcer, so consumers take the
// first and ignore a repeat. Contract: docs/RECOVERY_EVENTS.md, "A lost node".
#pragma once

#include <string>
#include <unordered_map>

#include "agent/tree/tree_node.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

inline constexpr const char* kNodeLostEvent = "FTB_NODE_LOST";

struct AgentEventText {
  std::string name;
  proto::Severity severity = proto::INFO;
  std::string payload;
  std::unordered_map<std::string, std::string> tags;
};

// `change` has a loss (change.loss); `announcer` is this agent's name.
AgentEventText nodeLostEvent(const tree::TopologyChange& change, const std::string& announcer);

// "<job>:<rank>,<rank>;<job>:..." (jobs in order, ranks ascending; a job
// whose clients said no rank has an empty list), the event's job_ranks tag.
std::string jobRanksText(const tree::Residents& residents);

}  // namespace ftb::agent
