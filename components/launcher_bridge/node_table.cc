#include "components/launcher_bridge/node_table.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "components/launcher_bridge/lists.h"

namespace ftb::launcher {

std::string_view nodeStateName(NodeState state) {
  switch (state) {
    case NodeState::kReady: return "MIGRATION_READY";
    case NodeState::kSpare: return "MIGRATION_SPARE";
    case NodeState::kArm: return "MIGRATION_ARM";
    case NodeState::kInactive: return "MIGRATION_INACTIVE";
  }
  return "?";
}

Result<NodeTable> NodeTable::create(const std::vector<std::string>& nodes,
                                    const std::vector<std::string>& spares, int ranks_per_node) {
  if (nodes.empty()) return invalidArgument("no job nodes given");
  if (ranks_per_node < 1) return invalidArgument("ranks per node must be at least 1");
  NodeTable table;
  std::set<std::string> seen;
  int rank = 0;
  for (const auto& name : nodes) {
    if (name.empty()) return invalidArgument("empty node name");
    if (!seen.insert(name).second) return invalidArgument("node '" + name + "' listed twice");
    NodeInfo node{.name = name, .state = NodeState::kReady};
    for (int i = 0; i < ranks_per_node; ++i) node.ranks.push_back(rank++);
    table.nodes_.push_back(std::move(node));
  }
  for (const auto& name : spares) {
    if (name.empty()) return invalidArgument("empty spare node name");
    if (!seen.insert(name).second) return invalidArgument("node '" + name + "' listed twice");
    table.nodes_.push_back({.name = name, .state = NodeState::kSpare});
  }
  table.rank_count_ = rank;
  return table;
}

std::vector<std::string> NodeTable::describe() const {
  std::vector<std::string> lines;
  for (const auto& node : nodes_) {
    const std::string ranks = rankList(node.ranks);
    lines.push_back(node.name + " " + std::string(nodeStateName(node.state)) + " " + (ranks.empty() ? "-" : ranks));
  }
  return lines;
}

Result<NodeTable> NodeTable::restore(const std::vector<std::string>& lines) {
  NodeTable table;
  std::set<int> ranks;
  for (const auto& line : lines) {
    std::istringstream in(line);
    std::string name, state, list;
    if (!(in >> name >> state >> list)) return invalidArgument("node table line '" + line + "' is not 'name STATE ranks'");
    NodeInfo node{.name = name};
    bool known = false;
    for (NodeState s : {NodeState::kReady, NodeState::kSpare, NodeState::kArm, NodeState::kInactive}) {
      if (nodeStateName(s) == state) {
        node.state = s;
        known = true;
      }
    }
    if (!known) return invalidArgument("node table line '" + line + "': unknown state " + state);
    if (list != "-") {
      std::istringstream items(list);
      for (std::string item; std::getline(items, item, ',');) {
        char* end = nullptr;
        const long r = std::strtol(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || r < 0 || !ranks.insert(static_cast<int>(r)).second) {
          return invalidArgument("node table line '" + line + "': bad or repeated rank '" + item + "'");
        }
        node.ranks.push_back(static_cast<int>(r));
      }
      std::sort(node.ranks.begin(), node.ranks.end());
    }
    table.nodes_.push_back(std::move(node));
  }
  if (ranks.empty() || *ranks.rbegin() != static_cast<int>(ranks.size()) - 1) {
    return invalidArgument("the node table's ranks are not 0..N-1");
  }
  table.rank_count_ = static_cast<int>(ranks.size());
  return table;
}

Status NodeTable::addSpare(const std::string& name) {
  if (name.empty()) return invalidArgument("empty spare node name");
  if (find(name) != nullptr) return invalidArgument("node '" + name + "' is in the table already");
  nodes_.push_back({.name = name, .state = NodeState::kSpare});
  return {};
}

int NodeTable::spareCount() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(),
                                        [](const NodeInfo& n) { return n.state == NodeState::kSpare; }));
}

const NodeInfo* NodeTable::find(std::string_view name) const {
  for (const auto& node : nodes_) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

NodeInfo* NodeTable::findMutable(std::string_view name) {
  return const_cast<NodeInfo*>(find(name));
}

int NodeTable::readyCount() const {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(),
                                        [](const NodeInfo& n) { return n.state == NodeState::kReady; }));
}

std::optional<std::string> NodeTable::armSpare() {
  for (auto& node : nodes_) {
    if (node.state == NodeState::kSpare) {
      node.state = NodeState::kArm;
      return node.name;
    }
  }
  return std::nullopt;
}

Status NodeTable::moveRanks(std::string_view from, std::string_view to) {
  NodeInfo* source = findMutable(from);
  NodeInfo* target = findMutable(to);
  if (source == nullptr) return notFound("no node '" + std::string(from) + "'");
  if (target == nullptr) return notFound("no node '" + std::string(to) + "'");
  if (source == target) return invalidArgument("cannot move ranks of '" + source->name + "' to itself");
  if (!target->ranks.empty() && target->state != NodeState::kReady) {
    return failedPrecondition("target '" + target->name + "' holds ranks but is not READY");
  }
  target->ranks.insert(target->ranks.end(), source->ranks.begin(), source->ranks.end());
  std::sort(target->ranks.begin(), target->ranks.end());
  source->ranks.clear();
  source->state = NodeState::kInactive;
  target->state = NodeState::kReady;
  return {};
}

Result<std::string> NodeTable::mergeIntoNeighbour(std::string_view dead) {
  const NodeInfo* node = find(dead);
  if (node == nullptr) return notFound("no node '" + std::string(dead) + "'");
  if (node->ranks.empty()) return failedPrecondition("node '" + node->name + "' runs no ranks");
  const int first = node->ranks.front();
  const int last = node->ranks.back();
  for (const auto& other : nodes_) {
    if (other.state != NodeState::kReady || other.ranks.empty() || other.name == node->name) continue;
    if (other.ranks.back() == first - 1 || other.ranks.front() == last + 1) {
      std::string receiver = other.name;
      if (Status s = moveRanks(dead, receiver); !s.ok()) return s;
      return receiver;
    }
  }
  return failedPrecondition("no READY node next to '" + node->name + "' can take its ranks");
}

Status NodeTable::markInactive(std::string_view name) {
  NodeInfo* node = findMutable(name);
  if (node == nullptr) return notFound("no node '" + std::string(name) + "'");
  node->state = NodeState::kInactive;
  return {};
}

Status NodeTable::markSpare(std::string_view name) {
  NodeInfo* node = findMutable(name);
  if (node == nullptr) return notFound("no node '" + std::string(name) + "'");
  if (node->state != NodeState::kInactive) {
    return failedPrecondition("node '" + node->name + "' is " + std::string(nodeStateName(node->state)) +
                              ", not INACTIVE");
  }
  if (!node->ranks.empty()) return failedPrecondition("node '" + node->name + "' still holds ranks");
  node->state = NodeState::kSpare;
  return {};
}

Status NodeTable::markReady(std::string_view name) {
  NodeInfo* node = findMutable(name);
  if (node == nullptr) return notFound("no node '" + std::string(name) + "'");
  if (node->state != NodeState::kInactive || node->ranks.empty()) {
    return failedPrecondition("node '" + node->name + "' is not an INACTIVE node with ranks");
  }
  node->state = NodeState::kReady;
  return {};
}

std::vector<int> NodeTable::recordReplacements(const std::vector<int>& ranks, const std::vector<std::string>& nodes) {
  std::vector<int> unknown;
  for (std::size_t i = 0; i < ranks.size() && i < nodes.size(); ++i) {
    NodeInfo* target = findMutable(nodes[i]);
    auto holds = [r = ranks[i]](const NodeInfo& n) { return std::binary_search(n.ranks.begin(), n.ranks.end(), r); };
    auto from = std::find_if(nodes_.begin(), nodes_.end(), holds);
    if (from == nodes_.end() || target == &*from) continue;  // not a rank of the job, or in place
    if (target == nullptr) {
      unknown.push_back(ranks[i]);
      continue;
    }
    from->ranks.erase(std::find(from->ranks.begin(), from->ranks.end(), ranks[i]));
    if (from->ranks.empty()) from->state = NodeState::kInactive;
    target->ranks.insert(std::upper_bound(target->ranks.begin(), target->ranks.end(), ranks[i]), ranks[i]);
    target->state = NodeState::kReady;
  }
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

std::vector<std::string> NodeTable::spareNames() const {
  std::vector<std::string> out;
  for (const auto& node : nodes_) {
    if (node.state == NodeState::kSpare) out.push_back(node.name);
  }
  return out;
}

std::string NodeTable::hostListWithSpares() const {
  std::size_t slots = 1;
  for (const auto& node : nodes_) slots = std::max(slots, node.ranks.size());
  std::string out = hostList();
  for (const std::string& spare : spareNames()) out += "," + spare + ":" + std::to_string(slots);
  return out;
}

namespace {
// Nodes with ranks, ordered by their first rank.
std::vector<const NodeInfo*> inRankOrder(const std::vector<NodeInfo>& nodes) {
  std::vector<const NodeInfo*> out;
  for (const auto& n : nodes) {
    if (!n.ranks.empty()) out.push_back(&n);
  }
  std::sort(out.begin(), out.end(),
            [](const NodeInfo* a, const NodeInfo* b) { return a->ranks.front() < b->ranks.front(); });
  return out;
}
}  // namespace

std::string NodeTable::hostList(bool with_encoders) const {
  std::string out;
  for (const NodeInfo* n : inRankOrder(nodes_)) {
    if (!out.empty()) out += ',';
    out += n->name + ":" + std::to_string(n->ranks.size() + (with_encoders ? 1 : 0));
  }
  return out;
}

bool NodeTable::contiguous() const {
  int next = 0;
  for (const NodeInfo* n : inRankOrder(nodes_)) {
    for (int r : n->ranks) {
      if (r != next++) return false;
    }
  }
  return true;
}

std::string NodeTable::rankfile(bool with_encoders) const {
  std::string out;
  int process = 0;
  for (const std::string& node : splitList(nodeMap(with_encoders))) {
    out += "rank " + std::to_string(process++) + "=" + node + " slot=0\n";
  }
  return out;
}

std::string NodeTable::rankHosts(bool with_encoders) const {
  std::string out;
  int process = 0;
  for (const std::string& node : splitList(nodeMap(with_encoders))) {
    if (!out.empty()) out += ',';
    out += std::to_string(process++) + "=" + node;
  }
  return out;
}

// Each rank's node in rank order; with encoders, a node's encoder comes just
// before its first rank.
std::string NodeTable::nodeMap(bool with_encoders) const {
  std::vector<const NodeInfo*> of(static_cast<std::size_t>(rank_count_), nullptr);
  for (const auto& n : nodes_) {
    for (int r : n.ranks) of[static_cast<std::size_t>(r)] = &n;
  }
  std::vector<std::string> names;
  for (std::size_t r = 0; r < of.size(); ++r) {
    if (of[r] == nullptr) continue;
    if (with_encoders && of[r]->ranks.front() == static_cast<int>(r)) names.push_back(of[r]->name);
    names.push_back(of[r]->name);
  }
  return joinList(names);
}

}  // namespace ftb::launcher
