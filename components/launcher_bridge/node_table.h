// The launcher's view of its nodes: which ranks each runs and its migration
// state (the thesis' node launch agent states). Ranks are dealt in blocks of
// ranks_per_node over the job nodes in order, and its own decisions move whole
// blocks, so the job is relaunched with a plain `mpirun --host a:k,b:m
// --map-by slot` in rank order. Only a run-through recovery that replaced
// some of a node's ranks elsewhere splits a block (recordReplacements); the
// table then says where each rank runs and the relaunch names every rank's
// node in a rankfile (contiguous(), rankfile()).
//
// Threading: not synchronised; the launcher's single event loop owns it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/status.h"

namespace ftb::launcher {

enum class NodeState { kReady, kSpare, kArm, kInactive };

// "MIGRATION_READY", "MIGRATION_SPARE", "MIGRATION_ARM", "MIGRATION_INACTIVE".
std::string_view nodeStateName(NodeState state);

struct NodeInfo {
  std::string name;
  NodeState state = NodeState::kSpare;
  std::vector<int> ranks;  // ascending; contiguous unless a run-through split the block
};

class NodeTable {
 public:
  // kInvalidArgument for no nodes, a repeated name or ranks_per_node < 1.
  static Result<NodeTable> create(const std::vector<std::string>& nodes,
                                  const std::vector<std::string>& spares, int ranks_per_node);

  // One line per node, "name STATE ranks" (ranks "0,1" or "-"), for the job's
  // journal; restore() reads them back. kInvalidArgument naming a bad line.
  std::vector<std::string> describe() const;
  static Result<NodeTable> restore(const std::vector<std::string>& lines);

  const NodeInfo* find(std::string_view name) const;
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  int rankCount() const { return rank_count_; }
  int readyCount() const;

  // The first SPARE node, now ARM (chosen as a migration target); nullopt if none.
  std::optional<std::string> armSpare();
  // Moves every rank of `from` to `to`: `to` becomes READY, `from` INACTIVE.
  Status moveRanks(std::string_view from, std::string_view to);
  // `dead`'s ranks go to the READY node whose block is adjacent in rank order
  // (no spare left); `dead` becomes INACTIVE. Returns the receiving node.
  Result<std::string> mergeIntoNeighbour(std::string_view dead);
  // INACTIVE (failing or drained); its ranks, if any, stay recorded until moved.
  Status markInactive(std::string_view name);
  // An INACTIVE node without ranks becomes a SPARE again.
  Status markSpare(std::string_view name);
  // An INACTIVE node that still runs ranks (drained, not migrated) is READY again.
  Status markReady(std::string_view name);
  // A new node (granted by the resource manager) joins as a SPARE.
  Status addSpare(const std::string& name);
  int spareCount() const;

  // A run-through recovery spawned replacements: rank ranks[i] now runs on
  // nodes[i], and the table records it there. A SPARE that receives ranks
  // becomes READY; a node left without ranks becomes INACTIVE (the whole block
  // went elsewhere: as moveRanks). Returns the ranks placed on a node the table
  // does not know, which stay recorded on their old node.
  std::vector<int> recordReplacements(const std::vector<int>& ranks, const std::vector<std::string>& nodes);

  // Every node's ranks one block, the blocks in rank order: `--map-by slot`
  // over hostList() places each rank where the table says.
  bool contiguous() const;
  // Where each process runs, one line "rank P=node slot=0" per process in
  // order (with_encoders as nodeMap), for a table that is not contiguous():
  // Open MPI 5's `--map-by rankfile:file=` with `--bind-to none` (the slot
  // names a CPU every node has; no binding follows from it).
  std::string rankfile(bool with_encoders = false) const;

  // mpirun's host list in rank order, "n1:2,n4:2,n3:2" (the nodes in the
  // order of their first rank, each with as many slots as it has ranks).
  // with_encoders: every node runs one process more, the first of its block
  // (its checkpoint encoder, FTBCKPT_ENCODER=node): "n1:3,n4:3,n3:3", and the
  // lists below name a node for every process, encoders included.
  std::string hostList(bool with_encoders = false) const;
  // The same with every SPARE node appended, as many slots as the largest
  // block, "n1:2,n4:2,n3:2,n5:2": after every rank's node, so no rank maps to
  // them, yet in mpirun's allocation, where a run-through recovery may spawn
  // replacements (their names in spareNames(), FTBCKPT_SPARE_NODES).
  std::string hostListWithSpares() const;
  std::vector<std::string> spareNames() const;
  // Host of each process, "0=n1,1=n1,...": what FTB_RANK_HOSTS tells the ranks.
  std::string rankHosts(bool with_encoders = false) const;
  // Host of each process in order, "n1,n1,n4,...": the runtime's FTBCKPT_NODE_MAP.
  std::string nodeMap(bool with_encoders = false) const;

 private:
  NodeInfo* findMutable(std::string_view name);
  std::vector<NodeInfo> nodes_;
  int rank_count_ = 0;
};

}  // namespace ftb::launcher
