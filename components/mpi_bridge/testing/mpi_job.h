// Test support: runs an MPI program under Open MPI's mpirun with its ranks
// placed on named "nodes" of this machine (FTBCKPT_NODE_MAP), and does what a
// launcher does on a failure: wipe a node's shared memory, relaunch with a new
// placement. Output goes to a file so a test can read it after the run.
//
//   MpiJob job("T1", runfile("components/mpi_bridge/examples/stencil"));
//   auto run = job.run({"n0", "n0", "n1", "n1"}, {"--iterations", "100"});
//   job.wipeNode("n1");
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ftb::mpi_bridge::testing {

struct MpiRun {
  int exit_code = -1;  // mpirun's exit code; -1 if it timed out (and was killed)
  std::string output;  // stdout and stderr together
  std::string lineWith(const std::string& prefix) const;  // first line starting with prefix, or ""
};

// Removes every shared-memory checkpoint file of `job_id` on this machine
// (what a job that stopped or migrated leaves for its relaunch).
void wipeJobMemory(const std::string& job_id);

class MpiJob {
 public:
  // The job id gets this process's pid appended, so concurrent runs of a test never share memory.
  MpiJob(std::string job_id, std::string binary);
  ~MpiJob();  // kills a run still going, wipes the job's shared memory
  MpiJob(MpiJob&& other) noexcept;
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  // Environment for every rank (FTB_JOB_ID is set already).
  void setEnv(const std::string& key, const std::string& value) { env_[key] = value; }
  void unsetEnv(const std::string& key) { env_.erase(key); }

  // One rank per entry of `nodes`; blocks until mpirun exits or `timeout`.
  MpiRun run(const std::vector<std::string>& nodes, const std::vector<std::string>& args,
             std::chrono::seconds timeout = std::chrono::seconds(60));
  // The same in the background; finish() waits for it.
  void start(const std::vector<std::string>& nodes, const std::vector<std::string>& args);
  MpiRun finish(std::chrono::seconds timeout = std::chrono::seconds(60));

  // A node failed: its ranks' shared memory is gone.
  void wipeNode(const std::string& node) const;
  void wipeAll() const;
  // Flips one byte of rank `rank`'s checkpoint file on `node` inside the blob area.
  void corrupt(const std::string& node, int rank) const;
  // Names of this job's shared-memory files on `node`.
  std::vector<std::string> shmFiles(const std::string& node) const;

  const std::string& jobId() const { return job_id_; }

 private:
  std::string job_id_;
  std::string binary_;
  std::map<std::string, std::string> env_;
  std::string out_path_;
  pid_t pid_ = -1;
  bool moved_from_ = false;
};

}  // namespace ftb::mpi_bridge::testing
