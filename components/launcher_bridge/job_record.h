// What ftb-run keeps of its job, in one file per job: while the job runs, its
// journal (state "running": placement, attempt, correlation id and the keeper
// of mpirun), so that a new `ftb-run --adopt JOB` can take the job over after
// ftb-run itself died; once stopped (state "stopped"), what `ftb-run --resume
// JOB` needs to start it again from its durable (flushed) checkpoint.
//
// Stored as a small text file, one `key=value` per line (a list repeats its
// key; the held will is its wire form in hex), written to a temporary file, synced and renamed into place, so a
// reader sees the old record or the new one, never half of one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "client/event.h"
#include "client/status.h"

namespace ftb::launcher {

struct JobRecord {
  std::string job_id;
  std::string state;  // "running", "stopped", "finished", "failed"
  int attempt = 0;    // of the current (or stopped) run
  std::string corr;   // running: the run's correlation id; stopped: the stop's
  std::string level;  // of the checkpoint taken to stop ("L5")
  std::vector<std::string> nodes;
  std::vector<std::string> spares;
  int ranks_per_node = 1;  // at the first launch
  // The job's rank count; 0 in a record older than the field (then nodes x
  // ranks_per_node). Merges and run-through replacements change the node count.
  int ranks = 0;
  std::string mpirun;
  std::vector<std::string> mpirun_args;
  bool run_through = false;  // ftb-run --run-through
  bool node_encoders = false;  // ftb-run --node-encoders
  std::vector<std::string> program;  // the MPI program and its arguments
  // The job's failure history, across runs, for the runtime's "auto" schedule
  // (FTB_FAILURES, FTB_JOB_STARTED in docs/RECOVERY_EVENTS.md):
  long started = 0;           // the first launch, seconds since the epoch
  int process_failures = 0;   // recoveries for a dead process (restart in place)
  int node_failures = 0;      // recoveries for a lost or failing node (relaunch, migration)
  // While running:
  int keeper_pid = 0;       // of `ftb-run --keep`, mpirun's parent
  std::string exit_file;    // where the keeper writes mpirun's exit code
  bool computing = false;   // every rank computes (not restoring)
  std::vector<std::string> table;  // one node per entry: "name STATE ranks" (ranks "0,1" or "-")
  // The id of the last event handled: an adopting ftb-run replays, from the
  // agent's history, what arrived after it (what no ftb-run saw meanwhile).
  std::string last_event;
  // A run-through recovery under way (--run-through): an adopting ftb-run
  // holds on where this one left off.
  long repair_until_ms = 0;         // the hold's deadline, ms since the epoch; 0: none under way
  std::string repair_corr;          // the runtime's correlation id; "" before its first step
  std::optional<Event> repair_will; // the held last will: the rules' trigger if the repair fails
  // Ranks run through in this run -> the publish time (s, ns) of their
  // recovery's `computing`: their last wills published before it are old news.
  std::map<int, std::pair<int64_t, int64_t>> run_through_done;
};

// `dir`/<job>.job
std::string jobRecordPath(const std::string& dir, const std::string& job_id);

// kInvalidArgument for a value with a newline (it could not be read back).
Status saveJobRecord(const std::string& path, const JobRecord& record);
// kNotFound when there is no record; kInvalidArgument naming the bad line.
Result<JobRecord> loadJobRecord(const std::string& path);

}  // namespace ftb::launcher
