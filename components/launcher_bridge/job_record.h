// What ftb-run keeps of a stopped job so that `ftb-run --resume JOB` can start
// it again later from its durable (flushed) checkpoint: where it ran, how it
// was started, and how far it got.
//
// Stored as a small text file, one `key=value` per line (a list repeats its
// key), written to a temporary file, synced and renamed into place, so a
// reader sees the old record or the new one, never half of one.
#pragma once

#include <string>
#include <vector>

#include "client/status.h"

namespace ftb::launcher {

struct JobRecord {
  std::string job_id;
  std::string state;  // "stopped"
  int attempt = 0;    // of the run that stopped
  std::string corr;   // correlation id of the stop
  std::string level;  // of the checkpoint taken to stop ("L5")
  std::vector<std::string> nodes;
  std::vector<std::string> spares;
  int ranks_per_node = 1;
  std::string mpirun;
  std::vector<std::string> mpirun_args;
  std::vector<std::string> program;  // the MPI program and its arguments
};

// `dir`/<job>.job
std::string jobRecordPath(const std::string& dir, const std::string& job_id);

// kInvalidArgument for a value with a newline (it could not be read back).
Status saveJobRecord(const std::string& path, const JobRecord& record);
// kNotFound when there is no record; kInvalidArgument naming the bad line.
Result<JobRecord> loadJobRecord(const std::string& path);

}  // namespace ftb::launcher
