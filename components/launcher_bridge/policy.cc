#include "components/launcher_bridge/policy.h"

#include <algorithm>
#include <cstdlib>

#include "client/wire/event_codec.h"

namespace ftb::launcher {

Policy::Policy(std::vector<Rule> rules, NodeTable& table, std::string job_id)
    : rules_(std::move(rules)), table_(table), job_id_(std::move(job_id)) {}

std::string Policy::nodeOf(const Event& event) {
  for (const char* key : {"host", "node"}) {
    if (auto it = event.tags.find(key); it != event.tags.end() && !it->second.empty()) return it->second;
  }
  const std::string& p = event.payload;
  // Agent topology events name the lost agent as peer=<name>@<address>.
  if (std::size_t peer = p.find("peer="); event.event_space == "FTB.AGENT" && peer != std::string::npos) {
    peer += 5;
    return p.substr(peer, p.find_first_of("@ \t", peer) - peer);
  }
  std::size_t end = p.find_first_of(" \t\n");
  std::string word = p.substr(0, end);
  return word.find('=') == std::string::npos ? word : "";
}

std::string Policy::newCorr() { return job_id_ + "-" + std::to_string(next_corr_++); }

std::optional<Decision> Policy::decide(const Event& event) {
  proto::Event wire;
  toProto(event, &wire);
  const std::string node = nodeOf(event);
  // A NORMAL reading ends the node's part in every over-temperature share.
  if (event.event_name == "FTB_IPMI_NORMAL") {
    for (auto& [line, nodes] : share_nodes_) nodes.erase(node);
  }
  std::optional<Decision> out;
  for (const Rule& rule : rules_) {
    if (!rule.filter.matches(wire)) continue;
    if (!out) out = Decision{.node = node};
    std::string why_not;
    if (apply(rule, event, *out, why_not)) {
      out->rule_line = rule.line;
      out->rule_text = rule.text;
      if (out->corr.empty()) {
        auto it = event.tags.find("corr");
        out->corr = it != event.tags.end() ? it->second : newCorr();
      }
      return out;
    }
    out->skipped.push_back("line " + std::to_string(rule.line) + ": " + why_not);
  }
  return out;
}

// A spare that fails or is lost is no target any more: it is drained.
bool Policy::retireSpare(const NodeInfo* node, Decision& d) {
  if (node == nullptr || node->state != NodeState::kSpare) return false;
  (void)table_.markInactive(d.node);
  d.action = Action::kDrain;
  return true;
}

bool Policy::apply(const Rule& rule, const Event& event, Decision& d, std::string& why_not) {
  const NodeInfo* node = table_.find(d.node);
  switch (rule.action) {
    case Action::kIgnore:
      d.action = Action::kIgnore;
      return true;
    case Action::kCheckpoint:
      d.action = Action::kCheckpoint;
      return true;
    case Action::kCheckpointIfShare: {
      if (node == nullptr || node->state != NodeState::kReady) {
        why_not = "node '" + d.node + "' runs no ranks of this job";
        return false;
      }
      auto& nodes = share_nodes_[rule.line];
      nodes.insert(d.node);
      const double share = static_cast<double>(nodes.size()) / table_.readyCount();
      if (share <= rule.share) {
        share_fired_.erase(rule.line);
        why_not = std::to_string(nodes.size()) + " of " + std::to_string(table_.readyCount()) +
                  " nodes, not above the share";
        return false;
      }
      if (!share_fired_.insert(rule.line).second) {
        why_not = "job checkpoint already taken for this share";
        return false;
      }
      d.action = Action::kCheckpoint;
      return true;
    }
    case Action::kMigrate: {
      if (node == nullptr || node->ranks.empty()) {  // READY, or drained with its ranks
        if (retireSpare(node, d)) return true;
        why_not = "node '" + d.node + "' runs no ranks of this job";
        return false;
      }
      std::optional<std::string> spare = table_.armSpare();
      if (!spare) {
        why_not = "no spare node left";
        return false;
      }
      d.ranks = node->ranks;
      if (Status s = table_.moveRanks(d.node, *spare); !s.ok()) {
        why_not = s.message();
        return false;
      }
      d.action = Action::kMigrate;
      d.target = *spare;
      return true;
    }
    case Action::kRelaunch: {
      if (retireSpare(node, d)) return true;
      if (node == nullptr || node->ranks.empty()) {
        why_not = "node '" + d.node + "' runs no ranks of this job (already handled?)";
        return false;
      }
      d.ranks = node->ranks;
      if (std::optional<std::string> spare = table_.armSpare()) {
        if (Status s = table_.moveRanks(d.node, *spare); !s.ok()) {
          why_not = s.message();
          return false;
        }
        d.target = *spare;
      } else {
        auto receiver = table_.mergeIntoNeighbour(d.node);
        if (!receiver.ok()) {
          why_not = receiver.status().message();
          return false;
        }
        d.target = *receiver;
      }
      d.action = Action::kRelaunch;
      return true;
    }
    case Action::kRestart:
      if (node == nullptr || node->ranks.empty()) {
        why_not = "node '" + d.node + "' runs no ranks of this job";
        return false;
      }
      d.ranks = node->ranks;
      d.target = d.node;  // the same nodes: nothing moves
      d.action = Action::kRestart;
      return true;
    case Action::kReplace: {
      auto rank = event.tags.find("rank"), pid = event.tags.find("pid");
      const int r = rank == event.tags.end() ? -1 : std::atoi(rank->second.c_str());
      if (node == nullptr || r < 0 || r >= table_.rankCount() ||
          std::find(node->ranks.begin(), node->ranks.end(), r) == node->ranks.end()) {
        why_not = "no rank '" + (rank == event.tags.end() ? std::string() : rank->second) + "' of this job on node '" +
                  d.node + "'";
        return false;
      }
      d.ranks = {r};
      d.target = d.node;
      d.pid = pid == event.tags.end() ? 0 : std::atol(pid->second.c_str());
      d.action = Action::kReplace;
      return true;
    }
    case Action::kSpare:
      if (node == nullptr || node->state != NodeState::kInactive) {
        why_not = "node '" + d.node + "' is not an inactive node of this job";
        return false;
      }
      if (!node->ranks.empty()) {  // drained, its ranks still there: no longer suspect
        (void)table_.markReady(d.node);
        d.action = Action::kResume;
        return true;
      }
      (void)table_.markSpare(d.node);
      d.action = Action::kSpare;
      return true;
    case Action::kDrain:
    case Action::kResume:
      if (node == nullptr) {
        why_not = "node '" + d.node + "' is not a node of this job";
        return false;
      }
      // A drained node is suspect: its ranks run on, but the runtime's
      // replacements for ranks lost there go to a spare (FTB_NLA_STATE);
      // a drained spare is no target any more.
      if (rule.action == Action::kDrain) (void)table_.markInactive(d.node);
      if (rule.action == Action::kResume && node->state == NodeState::kInactive && !node->ranks.empty()) {
        (void)table_.markReady(d.node);
      }
      d.action = rule.action;
      return true;
  }
  return false;
}

}  // namespace ftb::launcher
