// Where a run-through recovery puts its replacements (issue 33, "replacements
// where they belong"). In place by default: the lost rank's node still holds
// its own L1 copy, which it restores from, nothing rebuilt. On a spare only
// when its node is suspect: the job's launcher marked it MIGRATION_INACTIVE
// (failing or drained, docs/RECOVERY_EVENTS.md, FTB.NLA.<job>), so what runs
// there now may be lost next. Pure functions and one small thread-safe table,
// no MPI: rank 0 decides and tells the other survivors (ulfm_recovery.cc).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ftb::mpi_bridge {

inline constexpr const char* kNodeSuspect = "MIGRATION_INACTIVE";

// The newest FTB_NLA_STATE per node, as the bridge heard it (SDK thread).
class NodeStates {
 public:
  void update(const std::string& node, const std::string& state);
  std::map<std::string, std::string> snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> states_;
};

// The node of every rank after the repair: `node_of_rank` with each rank of
// `lost` placed. The lost ranks of a node that is suspect, or `emptied`, go
// together to the first free node of `spares` (FTBCKPT_SPARE_NODES: nodes
// the launcher put in mpirun's allocation; free: no rank on it, not suspect,
// not taken by another node's replacements); every other lost rank, and one
// of such a node when no spare is free, stays on its node.
std::vector<std::string> placeReplacements(const std::vector<int>& lost, std::vector<std::string> node_of_rank,
                                           const std::vector<std::string>& spares,
                                           const std::map<std::string, std::string>& states,
                                           const std::set<std::string>& emptied = {});

// The nodes of `lost` ranks whose machine (`host_of_rank`) runs no rank of the
// job any more. Open MPI 5.0.7 cannot spawn back onto such a machine (the
// replacement's MPI_Init fails in PMIx_Connect, "Not supported": checked in a
// network-namespace lab, 2026-12-05), so its replacements need a spare.
std::set<std::string> emptiedNodes(const std::vector<int>& lost, const std::vector<std::string>& node_of_rank,
                                   const std::vector<std::string>& host_of_rank);

// Whether the job's node names are its machines' names (every rank's node is
// the machine it runs on), so that a spare's name is a host to spawn on; not
// so where FTBCKPT_NODE_MAP names several "nodes" on one machine.
bool nodesAreMachines(const std::vector<std::string>& node_of_rank, const std::vector<std::string>& host_of_rank);

// One MPI_Comm_spawn_multiple app: `ranks.size()` replacements on `host`.
struct SpawnApp {
  std::string host;
  std::vector<int> ranks;  // the lost ranks they replace, in spawn order
};

// The replacements of `lost` (`host_of_lost[i]`: where lost[i]'s replacement
// goes) as spawn apps: one per host, hosts in order of first appearance. One
// app wherever one host takes them all, as when a node's ranks go to a spare
// or back in place: PMIx 5.0.7 (trixie) crashes mpirun on a spawn of several
// apps (its pmdl/ompi setup_fork reads a param-file value as a key-value; with
// Debian's pmix-mca-params.conf there always is one). The spawned ranks follow
// the apps' order, so the order the replacements learn is the apps' ranks joined.
std::vector<SpawnApp> spawnApps(const std::vector<int>& lost, const std::vector<std::string>& host_of_lost);

}  // namespace ftb::mpi_bridge
