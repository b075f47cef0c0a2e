// Run-through recovery on an MPI with the ULFM fault-tolerance extension
// (Open MPI 5 under `mpirun --with-ft ulfm`): a rank's death does not end the
// job. The survivors notice it inside MPI calls on the job's communicator
// (MPIX_ERR_PROC_FAILED, or MPIX_ERR_REVOKED once another rank revoked it),
// shrink the communicator, spawn one replacement per lost rank, merge with
// them and split the result keyed by the old ranks, so every rank keeps its
// number. The runtime then restores the newest checkpoint on the new
// communicator: survivors from their own L1 copy, replacements rebuilt from
// the partner copies or parity their group holds (ckpt_restore.h).
//
//   Built with an MPI whose <mpi-ext.h> defines OMPI_HAVE_MPI_EXT_FTMPI, this
//   file's implementation is the real one (kUlfmBuilt); otherwise every call is
//   a no-op and failed() never becomes true (the relaunch path applies).
//
// The application must take its communicator from the runtime (ftbckpt_comm())
// after ftbckpt_init and after every ftbckpt_loop: it changes after a recovery.
//
// Threading: MPI thread only, except that the error handler runs inside the
// MPI calls of whichever thread makes them (the asynchronous checkpoint's
// too): failed() is an atomic flag it sets, and revokeWith()/forget() lock.
// noticedByBackplane() (the SDK thread) and interrupted() (any thread) make no
// MPI call: the repair itself always runs on the MPI thread.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/bridge.h"
#include "components/mpi_bridge/config.h"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/replacement_placement.h"

namespace ftb::mpi_bridge {

// True when this library was compiled against an MPI with the ULFM extension.
extern const bool kUlfmBuilt;

class UlfmRecovery {
 public:
  using Clock = std::chrono::steady_clock;

  // In a replacement process (it has an MPI parent, the survivors that spawned
  // it): joins them and replaces `comm` with the job's repaired communicator,
  // `config.node_map` with where every rank runs now (also exported as
  // FTBCKPT_NODE_MAP) and `config.corr_id` with the recovery's correlation id.
  // Elsewhere does nothing. Collective with the survivors' repair().
  static Status joinIfReplacement(MPI_Comm& comm, Config& config);
  // True in a process that joinIfReplacement joined to a job.
  static bool isReplacement();

  // Watches `comm` (the job's communicator; communicators split from it
  // inherit the handler): MPI errors are returned to the caller instead of
  // aborting, and a process failure or revocation sets failed() and revokes
  // `comm` and every communicator given to revokeWith(), so every rank's next
  // call on any of them returns too. SIGPIPE is ignored from then on, unless
  // the application handles it (a write to a dead peer's socket must not end
  // a survivor).
  void watch(MPI_Comm comm);
  bool failed() const;

  // A peer's death heard from the backplane (its last will, peer_deaths.h)
  // before any MPI call failed: failed() becomes true, and the MPI thread's
  // next loop() starts the repair (revoke, shrink) without waiting for an MPI
  // call to fail. Does nothing unless a communicator is watched.
  static void noticedByBackplane();
  // failed(), for any thread: a rank in a long compute phase polls it (through
  // ftbckpt_interrupted) to go to loop() at once, as the repair needs every survivor.
  // Under local rollback (keepWork) a survivor's work is kept: it computes
  // on and meets the repair in its next MPI call, so this is true only once
  // a repair inside such a call rolled the rank back (rolledBack).
  static bool interrupted();
  static void keepWork(bool on);
  // A repair inside an MPI call of the application rolled this rank back
  // (global rollback): the application must go to loop(), which clears it.
  static void rolledBack(bool pending);

  // `derived` (split or duplicated from the watched communicator: a group's,
  // the asynchronous checkpoint's, a restore's) is revoked with it. ULFM
  // interrupts a call only on a communicator that holds the failed process or
  // is revoked: a rank waiting in a group whose members all live would never
  // learn that they left for the repair, and the repair's shrink, which needs
  // every survivor, would wait for it forever. Call forget() before freeing it.
  // Without ULFM both do nothing.
  static void revokeWith(MPI_Comm derived);
  static void forget(MPI_Comm derived);

  // Survivors, once failed(): revoke, shrink, spawn the replacements (where
  // the lost rank ran, or on a spare if `node_states` says its node is
  // suspect: replacement_placement.h), merge, split by old rank. Updates `config` like joinIfReplacement and
  // returns the new communicator (watched). Publishes FTB_RUN_THROUGH steps
  // detected, shrunk, spawned on `bridge`. The old communicators are revoked
  // (with those given to revokeWith) and not freed (disconnecting from the
  // spawn hangs in Open MPI 5.0.7).
  Result<MPI_Comm> repair(const Job& job, Config& config, Bridge& bridge, const NodeStates& node_states);

  // Before MPI_Finalize, on the watched communicator: a barrier, so that no
  // process enters MPI_Finalize while its last messages may still wait for
  // their connection. A replacement across nodes can crash in Open MPI
  // 5.0.7's MPI_Finalize (its disconnect from the spawning job), and a job's
  // last gather was lost with it once (tests/ulfm, across nodes: no RESULT).
  // Errors are ignored (a rank that died after its last loop()).
  static void settleBeforeFinalize();

  // Publishes step `step` of the current recovery (restored, computing) with
  // the milliseconds since its detection.
  void publishStep(Bridge& bridge, const std::string& step, const Tags& extra = {}) const;

  const std::string& corr() const { return corr_; }

 private:
  // Unused where the MPI has no ULFM (the .cc's stubs): clang would warn.
  [[maybe_unused]] int recoveries_ = 0;
  std::string corr_;
  std::string lost_;  // comma list of the lost ranks
  // The lowest surviving rank of the last repair: it publishes the steps
  // (rank 0 unless rank 0 was lost; a replacement never).
  [[maybe_unused]] int reporter_ = -1;
  std::string detected_by_;  // "backplane" (a will) or "mpi" (an MPI call failed)
  Clock::time_point detected_{};
  [[maybe_unused]] int rank_ = 0;
};

}  // namespace ftb::mpi_bridge
