// Local rollback's log of the application's MPI traffic (docs/FTBCKPT.md,
// "Local rollback"). This library defines MPI_Send, MPI_Recv, MPI_Wait, ...
// (the MPI profiling interface): a program linked to ftbckpt calls them
// instead of Open MPI's, and they call their PMPI_ twins. Once start() names
// the job's communicator, the application's calls on it are logged in a
// MessageLog (message_log.h):
//
//   covered: MPI_Send, MPI_Ssend, MPI_Isend, MPI_Issend, MPI_Recv, MPI_Irecv,
//     MPI_Sendrecv, MPI_Probe, MPI_Iprobe (logged_p2p.cc); MPI_Wait, Waitall,
//     Waitany, Waitsome, Test, Testall, Testany, Testsome,
//     MPI_Request_get_status, MPI_Request_free of a send (logged_requests.cc);
//     MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Allgather, MPI_Gather
//     (logged_collectives.cc).
//   uncovered (uncovered_calls.cc: the other point-to-point and collective
//     calls, communicators derived from it, windows): they run as usual but
//     spoil the epoch's log, so that a failure in it is recovered by global
//     rollback, and the reason names the call.
//
// Logged: calls on the logged communicator from the thread that called
// start(), outside the runtime's own calls (RuntimeCall). Everything else,
// and everything before start(), goes straight to PMPI.
//
// Requests of logged calls are this library's handles, not Open MPI's: pass
// them only to the calls above (MPI_Cancel too), from the MPI thread.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/local_recovery_plan.h"
#include "components/mpi_bridge/message_log.h"

namespace ftb::mpi_bridge {

class LoggedMpi {
 public:
  // Logs the calls of the calling thread on `comm`, at most `bound_bytes` per
  // epoch, from the epoch after `line` (a checkpoint every rank restored, or
  // -1: the job's start); the determinants also go to the node-memory store
  // `store_name` (determinant_store.h), made on first use. Again after every
  // restore, with a new log.
  static void start(MPI_Comm comm, std::size_t bound_bytes, std::int64_t line, const std::string& store_name);
  static void stop();
  // The job is over: its determinant store goes (stop() keeps it).
  static void removeStore();
  static bool started();

  // Collective over the logged communicator, at a checkpoint line every rank
  // reached: checks that every message sent in the ending epoch was received
  // in it (one that crossed the line could not be replayed: the new epoch is
  // spoiled, naming the pair of ranks), then starts epoch `line`.
  static Status checkpointLine(std::int64_t line);

  // The log of the current epoch (started() only).
  static const MessageLog& log();

  // Collective over `comm` (a repaired communicator): every rank's account of
  // its log, in rank order; a replacement gives `restarted` (an empty one).
  static Result<std::vector<LogAccount>> accounts(MPI_Comm comm, const std::optional<LogAccount>& restarted);

  // The epoch can no longer be replayed because `why` (started() only).
  static void spoil(std::string why);

  // Local recovery, carried out (docs/FTBCKPT.md, "Local rollback").
  //
  // Set by the runtime: `pending` says whether a process failure is known
  // (a logged call's error then is the failure's); `repair` repairs the job
  // after one a logged call met: true when the recovery was local, and the
  // call carries on as if nothing happened. False: every rank rolled back (the
  // call returns its error, and the application goes to ftbckpt_loop), or the
  // repair failed.
  static void onFailure(std::function<bool()> pending, std::function<bool()> repair);
  // On a survivor, after the repair and before the accounts: the log goes on
  // over `repaired` (a call naming the old communicator reaches it), and the
  // requests the failure interrupted are settled: a receive that finished
  // before it is counted, the others' real requests freed. After a local plan
  // carryOut posts their receives again on `repaired` and finishes their
  // sends (a message is resent if its receiver lacks it).
  static void settleInterrupted(MPI_Comm repaired);
  // Collective over `comm` (the repaired one), with the plan every rank made
  // from `accounts`: this rank resends what its peers lack of its log (sends
  // that finish in the background), and the survivor holding the most
  // collectives hands their results to every rank that lacks some. Returns
  // this rank's part of the replay (replayFor, with those results).
  static Result<RankReplay> carryOut(MPI_Comm comm, const LocalRecoveryPlan& plan,
                                     const std::vector<LogAccount>& accounts);
  // Replays `replay` on the current epoch (a replacement: once its restore
  // started it): the sends its peers received are skipped, the collectives it
  // lacks return the handed-over results, and a nondeterministic outcome
  // before every resent message arrived ends the run with an error.
  static void replay(RankReplay replay);
  // Tests (FTBCKPT_FAULT=replay:R): `die` runs at the first send the replay skips.
  static void atFirstSkip(std::function<void()> die);

  // MPI_Bcast as if the application called it: logged, replayed, repaired in
  // the call (the runtime's decision at each loop call, which a replacement
  // must take as the survivors took it).
  static int applicationBcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

  // While one exists on the MPI thread, its MPI calls pass through unlogged:
  // the runtime's own protocols (checkpoint, restore, repair). Nests.
  class RuntimeCall {
   public:
    RuntimeCall();
    ~RuntimeCall();
    RuntimeCall(const RuntimeCall&) = delete;
    RuntimeCall& operator=(const RuntimeCall&) = delete;
  };
};

}  // namespace ftb::mpi_bridge
