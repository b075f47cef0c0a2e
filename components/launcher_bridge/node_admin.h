// The resource manager's side of a node: drain a failing node with a reason,
// resume it when it is healthy again, and ask for more nodes when the spares
// are used up. Outside a Slurm allocation there is no resource manager and
// NoNodeAdmin does nothing.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"

namespace ftb::launcher {

class NodeAdmin {
 public:
  virtual ~NodeAdmin() = default;
  virtual Status drain(const std::string& node, const std::string& reason) = 0;
  virtual Status resume(const std::string& node) = 0;
  virtual std::string name() const = 0;
  // `count` more nodes for job `job_id`, or kUnavailable when none can be had
  // now; may block a few seconds, and is called on a thread of its own (the
  // launcher's loop goes on meanwhile). They stay the job's until releaseNodes().
  virtual Result<std::vector<std::string>> requestNodes(int count, const std::string& job_id) {
    (void)count;
    (void)job_id;
    return unavailable("no resource manager to ask for nodes");
  }
  virtual void releaseNodes() {}
};

class NoNodeAdmin : public NodeAdmin {
 public:
  Status drain(const std::string&, const std::string&) override { return {}; }
  Status resume(const std::string&) override { return {}; }
  std::string name() const override { return "none"; }
};

// Runs `scontrol update nodename=<node> state=drain|resume [reason=...]`.
// `scontrol` is looked up in PATH (SLURM_CONF in the environment picks the cluster).
// New nodes come from a companion allocation: `salloc --no-shell --immediate`
// (Slurm 22.05 has no supported way to grow a running allocation), released
// with `scancel` when ftb-run ends.
class SlurmNodeAdmin : public NodeAdmin {
 public:
  explicit SlurmNodeAdmin(std::string scontrol = "scontrol") : scontrol_(std::move(scontrol)) {}
  ~SlurmNodeAdmin() override { releaseNodes(); }
  Status drain(const std::string& node, const std::string& reason) override;
  Status resume(const std::string& node) override;
  std::string name() const override { return "slurm"; }
  Result<std::vector<std::string>> requestNodes(int count, const std::string& job_id) override;
  void releaseNodes() override;

 private:
  std::string scontrol_;
  std::mutex mu_;                        // requestNodes runs on its own thread
  std::vector<std::string> companions_;  // Slurm job ids of the companion allocations
};

// The Slurm job id in salloc's "Granted job allocation 123"; nullopt if none.
std::optional<std::string> grantedJobId(const std::string& salloc_output);

// Runs a program (no shell) and returns its standard output; kInternal with
// the exit status and output when it fails.
Result<std::string> runProgram(const std::vector<std::string>& argv);

}  // namespace ftb::launcher
