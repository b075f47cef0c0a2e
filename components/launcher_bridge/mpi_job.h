// One run of the MPI job: `mpirun` as a child process in its own process
// group, so a relaunch can end every process it started.
//
// Threading: used by the launcher's event loop only.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"

namespace ftb::launcher {

struct MpiJobSpec {
  std::string mpirun = "mpirun";
  std::vector<std::string> mpirun_args;  // extra launcher arguments (before the program)
  std::string host_list;                 // "n1:2,n4:2"
  int ranks = 0;
  std::vector<std::string> program;          // what every rank runs
  std::map<std::string, std::string> env;    // set here and exported to the ranks (-x)
};

// The mpirun command line for `spec` (also what --dry-run prints).
std::vector<std::string> mpirunCommand(const MpiJobSpec& spec);

class MpiJob {
 public:
  MpiJob() = default;
  ~MpiJob();  // terminates a still running job
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  Status start(const MpiJobSpec& spec);
  bool running() const { return pid_ > 0; }
  // The exit code once it has ended (signals as 128 + signal), without
  // waiting; reported once, also after terminate().
  std::optional<int> poll();
  // SIGTERM to the process group, SIGKILL after `grace_ms`; the next poll()
  // reports the exit code.
  void terminate(int grace_ms = 3000);

 private:
  pid_t pid_ = -1;
  std::optional<int> ended_;  // reaped by terminate(), not yet reported by poll()
};

}  // namespace ftb::launcher
