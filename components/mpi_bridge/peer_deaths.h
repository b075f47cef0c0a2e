// Which peers of this job the backplane has announced dead (issue 33, "the
// backplane tells the runtime first"). A rank that dies without finalize has
// its last will, FTB_MPI_PROCS_DEAD, published by its node's agent within
// milliseconds (bridge.h); every other rank's bridge hears it on the SDK thread
// and announces it here. An announcement counts only if it names the process
// that holds that rank now (its node and pid): a late will of a rank that a
// repair already replaced must not start another repair. Between repairing()
// and the next learn() every announcement is ignored, as the table is about to
// change; MPI's own detection still covers deaths in that window.
//
// A node lost with its agent (power, kernel, network) leaves no wills: the
// tree announces the node instead (FTB_NODE_LOST, naming the ranks of each job
// its agent served, docs/RECOVERY_EVENTS.md, "A lost node"). It counts if one
// of the named ranks is a peer's current process on that node, unless this
// rank runs there itself: then only the agent died, and the node lives.
//
// No MPI here: the runtime gathers the table and calls learn(); the bridge
// calls announce() and announceNode() from the SDK thread. Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace ftb::mpi_bridge {

struct PeerProcess {
  std::string node;
  long pid = 0;
};

// The ranks of `job` in an FTB_NODE_LOST's `job_ranks` ("J1:1,3;J2:"); none
// if the job is not named or its list is malformed.
std::vector<int> ranksOfJob(const std::string& job_ranks, const std::string& job);

class PeerDeaths {
 public:
  // `on_death` runs on the announcing thread, once per counted announcement.
  explicit PeerDeaths(std::function<void(int rank)> on_death) : on_death_(std::move(on_death)) {}

  // The processes that hold ranks 0..n-1 now, with `self` this process's rank.
  void learn(std::vector<PeerProcess> peers, int self);
  // A repair started: the table is stale until the next learn().
  void repairing();
  // A will said rank `rank`, process `pid` on `node`, died. True (and
  // on_death called) if that is a peer's current process.
  bool announce(int rank, const std::string& node, long pid);
  // The tree said `node` was lost with `ranks` of this job on it. True (and
  // on_death called with the first such peer) if that counts, as above.
  bool announceNode(const std::string& node, const std::vector<int>& ranks);

 private:
  std::function<void(int)> on_death_;
  std::mutex mu_;
  std::vector<PeerProcess> peers_;
  int self_ = -1;
  bool current_ = false;
};

}  // namespace ftb::mpi_bridge
