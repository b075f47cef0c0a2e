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
  // When set, this rankfile places the ranks (`--map-by rankfile:file=`,
  // Open MPI 5's syntax, with `--bind-to none`) instead of `--map-by slot` in
  // host_list's order: a run-through split a node's block (NodeTable::rankfile).
  std::string rankfile;
  int ranks = 0;
  std::vector<std::string> program;          // what every rank runs
  std::map<std::string, std::string> env;    // set here and exported to the ranks (-x)
  // `--with-ft ulfm` (Open MPI 5): a rank's death does not end the run
  // (unless mpirun_args choose --with-ft already).
  bool with_ft_ulfm = false;
  // When set, mpirun runs under this keeper command (`ftb-run --keep FILE --`):
  // it outlives ftb-run and writes mpirun's exit code to `exit_file`, so that a
  // new ftb-run can adopt the job (ftb-run --adopt).
  std::vector<std::string> keeper;
  std::string exit_file;
};

// The mpirun command line for `spec` (also what --dry-run prints).
std::vector<std::string> mpirunCommand(const MpiJobSpec& spec);

// What mpirunCommand exports to the ranks as GLIBC_TUNABLES: the caller's
// (this process's environment) plus glibc.malloc.hugetlb=1, so that the ranks'
// malloc asks for transparent huge pages and a rank's arrays are faulted in
// 2 MiB at a time: 64 MiB in 25-45 ms, not the 0.25-0.5 s of 16k 4 KiB faults
// where a fault is dear (a shadow-paging VM); nothing where THP is "never".
// "" (nothing exported) when the caller chose: their GLIBC_TUNABLES names
// glibc.malloc.hugetlb (=0 opts out), or `mpirun_args` pass GLIBC_TUNABLES.
std::string ranksTunables(const MpiJobSpec& spec);

class MpiJob {
 public:
  MpiJob() = default;
  ~MpiJob();  // terminates a still running job
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  Status start(const MpiJobSpec& spec);
  // Takes over a job another ftb-run started with a keeper: `keeper_pid` is
  // watched through a pidfd (it is not our child) and its exit code read from
  // `exit_file` (128 + SIGKILL when the keeper died without writing it).
  // kNotFound when that process is gone and left no exit code.
  Status adopt(pid_t keeper_pid, const std::string& exit_file);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // The exit code once it has ended (signals as 128 + signal), without
  // waiting; reported once, also after terminate().
  std::optional<int> poll();
  // SIGTERM to the process group, SIGKILL after `grace_ms`; the next poll()
  // reports the exit code.
  void terminate(int grace_ms = 3000);

 private:
  // The exit code of an ended job: waitpid for our child, the pidfd and the
  // exit file for an adopted one; nullopt while it runs (or with `block`, waits).
  std::optional<int> reap(bool block);

  pid_t pid_ = -1;
  int pidfd_ = -1;            // adopted: the keeper's pidfd
  std::string exit_file_;
  std::optional<int> ended_;  // reaped by terminate(), not yet reported by poll()
};

// `ftb-run --keep FILE -- program...`: runs the program as a child, ignoring
// SIGTERM/SIGINT/SIGHUP itself (they reach the program through the process
// group), and writes its exit code (128 + signal) to FILE, aside and renamed
// into place; returns that code.
int keepProcess(const std::string& exit_file, const std::vector<std::string>& program);

}  // namespace ftb::launcher
