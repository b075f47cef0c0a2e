// The launcher's manager: runs the MPI job, feeds every event from the
// backplane through the Policy, and turns decisions into events (FTB_DECISION,
// FTB_CHECKPOINT, FTB_MIGRATE, FTB_MIGRATE_IPT, FTB_JOB_STATE, FTB_NLA_STATE),
// resource-manager actions (NodeAdmin) and relaunches of the job.
//
//   Launcher launcher(options, channel, policy, table, admin);
//   return launcher.run();   // the job's exit code, or 1 when it failed for good
//
// Threading: run() is the one event loop; everything else happens on it.
#pragma once

#include <chrono>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "components/launcher_bridge/death_window.h"
#include "components/launcher_bridge/job_channel.h"
#include "components/launcher_bridge/job_record.h"
#include "components/launcher_bridge/lists.h"
#include "components/launcher_bridge/mpi_job.h"
#include "components/launcher_bridge/node_admin.h"
#include "components/launcher_bridge/node_table.h"
#include "components/launcher_bridge/policy.h"

namespace ftb::launcher {

struct LauncherOptions {
  std::string job_id;
  MpiJobSpec job;  // host_list, ranks and env are filled per launch
  bool dry_run = false;
  int max_restarts = 3;
  int checkpoint_every_s = 0;      // 0: no timer
  int checkpoint_deadline_ms = 10000;
  int migrate_deadline_ms = 20000;  // FTB_MIGRATE sent -> the job must have exited
  int exit_grace_ms = 1500;         // unexplained exit: wait this long for events that explain it
  // Ranks' last wills (FTB_MPI_PROCS_DEAD): the first ends the run at once;
  // they are gathered until every job node reported deaths (then the rules
  // decide), at most this long (death_window.h).
  int death_settle_ms = 1000;
  // --run-through: the MPI runs through a rank's death (ULFM: Open MPI 5 under
  // `mpirun --with-ft ulfm`) and the runtime replaces the rank on its node
  // without ending the run. A rank's last will is then held this long for the
  // runtime's FTB_RUN_THROUGH `computing`; without it, the relaunch path takes
  // over. A node's loss still ends the run (Debian's PRRTE cannot run through
  // it) and is relaunched as without the option.
  bool run_through = false;
  int run_through_deadline_ms = 15000;
  // --node-encoders: every job node runs one process more, the first of its
  // block, as the node's dedicated checkpoint encoder (FTBCKPT_ENCODER=node);
  // ranks keep their numbers (the runtime leaves the encoders out).
  bool node_encoders = false;
  // Every rank of the run said FTB_RANK_FINISHED: mpirun has this long to exit
  // before it is ended and the run counted as finished (MPI_Finalize can hang
  // after a ULFM recovery).
  int finalize_grace_ms = 10000;
  std::string runtime_space = "FTB.MPI.FTBCKPT";
  // Stop and resume (FTB_STOP_REQUEST, ftb-run --stop/--resume): where the
  // record of a stopped job is kept, the level that outlives the job, and how
  // long the final checkpoint and the exit may take.
  std::string state_dir = "/var/lib/ftb-run";
  std::string stop_level = "L5";
  int stop_deadline_ms = 60000;
  JobRecord record;             // how this job was started (journal and stop record)
  std::optional<JobRecord> resumed_from;  // --resume: the run continues this stopped one
  // mpirun runs under `keeper` + {"--keep", <state_dir>/<job>.exit, "--"} (ftb-run
  // itself), so that the job outlives this ftb-run and can be adopted.
  std::string keeper;
  std::optional<JobRecord> adopt;  // --adopt: the journal of the job to take over
  // Fewer SPARE nodes than this: ask the resource manager for the rest (NodeAdmin::requestNodes).
  int min_spares = 1;
  int grow_retry_s = 30;  // after a refusal, ask again this much later
};

// What an operator publishes to stop a job for a later resume
// (`ftbctl publish --name FTB_STOP_REQUEST --job-id JOB ...`, or `ftb-run --stop JOB`).
inline constexpr std::string_view kStopRequest = "FTB_STOP_REQUEST";

class Launcher {
 public:
  Launcher(LauncherOptions options, JobChannel& channel, Policy& policy, NodeTable& table, NodeAdmin& admin);
  int run();

 private:
  struct PendingCheckpoint {
    std::string corr;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point deadline;
    std::set<int> done;
    std::vector<std::string> failures;
  };
  struct PendingStop {
    std::string corr;
    std::chrono::steady_clock::time_point deadline;
    std::set<int> done;  // ranks whose final checkpoint is complete
  };
  struct PendingRecovery {
    std::string corr;
    std::string reason;  // "migrate", "relaunch" or "restart"
    std::string source;
    std::string target;
    std::vector<int> ranks;
    std::chrono::steady_clock::time_point deadline;
  };

  // A rank's death or a runtime step while the MPI runs through it: the
  // recovery is the runtime's; ftb-run watches it and tells its story.
  struct PendingRunThrough {
    std::string corr;             // the runtime's (its first FTB_RUN_THROUGH), "" before
    std::optional<Event> will;    // the first rank's last will, the relaunch's trigger if it fails
    std::chrono::steady_clock::time_point deadline;
  };

  // A hung rank ftb-run ended (kReplace): its last will is due by `deadline`;
  // past it, the whole run restarts in place.
  struct PendingReplace {
    std::string corr;
    std::string node;
    int rank = -1;
    std::chrono::steady_clock::time_point deadline;
  };

  Status launch();
  Status adoptJob();
  // The job's record in `state` ("running": its journal), and its writing to
  // <state_dir>/<job>.job; a failure to write is logged, not fatal.
  // The failure history and start time of an adopted or resumed job.
  void restoreHistory(const JobRecord& record);
  JobRecord journalRecord(const std::string& state) const;
  void saveJournal(const std::string& state);
  std::string exitFile() const { return options_.state_dir + "/" + options_.job_id + ".exit"; }
  void handle(const Event& event);
  void decide(const Event& event);  // through the policy, then FTB_DECISION and execute()
  // Waits for the next event up to `timeout` (less while deaths settle) and
  // handles it; closes the death window when it is due. True if it handled one.
  bool pump(std::chrono::milliseconds timeout);
  void handleRuntime(const Event& event);
  void holdForRunThrough(const Event& event);  // a will or an FTB_RUN_THROUGH step
  // No `computing` in time, or the run ended during the repair: the relaunch path.
  void abandonRunThrough(const std::string& why);
  // A rank told to end (replace) lives on past its deadline: restart the run in place.
  void endUnresponsiveRank();
  void rankFinished(const Event& event);
  void execute(const Decision& d);
  void startCheckpoint(const std::string& corr, const std::string& why);
  void startStop(const Event& request);
  // The job exited while a stop was pending: the record if every rank's final
  // checkpoint is complete; returns the program's exit code.
  int finishStop(int code);
  void finishCheckpoint(bool timed_out);
  // The job ended with `code`; returns the program's exit code when ftb-run is done.
  std::optional<int> onExit(int code);
  void publishNodeStates(const std::string& corr);
  // Below --min-spares: new nodes from the resource manager join as spares.
  // The request runs on its own thread (salloc may wait seconds); the loop
  // takes its answer when it is ready.
  void replenishSpares();
  void jobState(const std::string& state, const std::string& corr, const std::string& extra = "");
  // The job's failure history as the runtime reads it: "process:N,node:M"
  // (FTB_FAILURES, in every run's environment and in the event of that name).
  std::string failuresText() const {
    return "process:" + std::to_string(process_failures_) + ",node:" + std::to_string(node_failures_);
  }

  LauncherOptions options_;
  JobChannel& channel_;
  Policy& policy_;
  NodeTable& table_;
  NodeAdmin& admin_;
  MpiJob job_;
  int attempt_ = 0;
  // The failure history handed to every run (FTB_FAILURES, FTB_JOB_STARTED):
  // the runtime's "auto" schedule derives its failure rates from it.
  long started_ = 0;  // the first launch, seconds since the epoch
  int process_failures_ = 0;
  int node_failures_ = 0;
  std::string launch_corr_;  // FTB_CORR_ID of the current run ("" for the first)
  std::optional<PendingCheckpoint> checkpoint_;
  std::optional<PendingRecovery> recovery_;
  std::optional<PendingStop> stop_;
  std::optional<PendingRunThrough> run_through_;
  std::optional<PendingReplace> replacing_;
  std::map<int, int> finished_;  // rank -> exit code: FTB_RANK_FINISHED of this run
  std::optional<std::chrono::steady_clock::time_point> finalize_deadline_;  // every rank finished
  bool ended_after_finish_ = false;  // ftb-run ended mpirun after finalize_grace_ms
  // Ranks run through in this run -> the publish time of their `computing`:
  // their wills published before it were that recovery's.
  std::map<int, std::pair<int64_t, int64_t>> run_through_done_;
  std::string last_event_;  // id of the last event handled (journaled: an adopter replays what came after)
  std::vector<Event> agent_losses_;  // FTB.AGENT events seen while the job ran
  DeathWindow deaths_{std::chrono::milliseconds(options_.death_settle_ms)};
  bool computing_ = false;   // the ranks run (first launch, or every rank restored)
  std::set<int> restored_;  // ranks that reported FTB_RESTART_DONE for launch_corr_
  std::map<std::string, NodeState> published_states_;
  std::chrono::steady_clock::time_point next_timer_checkpoint_;
  int timer_checkpoints_ = 0;
  std::chrono::steady_clock::time_point next_grow_;  // no request for nodes before this
  std::future<Result<std::vector<std::string>>> grow_;  // a request for nodes under way
  int grows_ = 0;
};

}  // namespace ftb::launcher
