// ftbckpt C++ API: the in-memory erasure-coded checkpoint runtime (see
// ftbckpt.h for the levels and the C API, README.md for configuration).
//
//   auto rt = ftb::mpi_bridge::Runtime::create(MPI_COMM_WORLD, *configFromEnvironment());
//   (*rt)->protect(0, grid.data(), grid.size() * sizeof(double));
//   for (;;) {
//     auto it = (*rt)->loop();            // restores on the first call after a relaunch
//     if (!it || *it == Runtime::kExit || *it >= iterations) break;
//     step(grid);
//   }
//   return (*rt)->finalize();             // 0, or kExitRelaunch after a migration
//
// Threading: every method is called from the thread that calls MPI; all but
// protect() and restartAvailable() are collective over the communicator.
// interrupted() is the exception: any thread, no MPI call.
// Requests from the backplane arrive on the SDK thread and are acted on at the
// next loop() call, by every rank at the same iteration.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "client/status.h"
#include "components/mpi_bridge/config.h"

namespace ftb::mpi_bridge {

struct CheckpointReport {
  int64_t ckpt_id = 0;
  Level level = Level::kL1;
  uint64_t bytes = 0;   // this rank's protected bytes
  uint64_t stored = 0;  // bytes it stored in node memory (own + partner + parity)
  double seconds = 0;   // the slowest rank's time (agreed)
};

struct RestartReport {
  int64_t ckpt_id = 0;
  int64_t iteration = 0;
  Level source = Level::kL1;     // where this rank's data came from
  std::string rebuilt = "none";  // none, partner, xor, rs, flush
  double seconds = 0;
};

// Young's optimal checkpoint interval sqrt(2 * C * MTBF), in seconds; used
// when FTBCKPT_MTBF is set, with C the last checkpoint's measured cost.
double youngInterval(double checkpoint_seconds, double mtbf_seconds);

class Runtime {
 public:
  static constexpr long kExit = -1;          // loop(): leave the loop, then finalize()
  static constexpr int kExitRelaunch = 75;   // finalize() after a migration: relaunch the job

  // Collective. Reads where every rank runs, forms the groups, connects to the
  // agent (or logs once that it is not connected) and looks for checkpoint data.
  static Result<std::unique_ptr<Runtime>> create(MPI_Comm comm, Config config);
  virtual ~Runtime() = default;

  virtual Status protect(int id, void* ptr, std::size_t bytes) = 0;

  // The job's communicator: the one given to create(), until a run-through
  // recovery (ulfm_recovery.h) replaces it. Take it again after every loop().
  virtual MPI_Comm comm() const = 0;
  // The node this rank runs on, as the runtime names it (FTBCKPT_NODE_MAP,
  // FTB_NODE_NAME or the hostname).
  virtual const std::string& node() const = 0;

  // True once a peer of this job is known lost (its last will came over the
  // backplane, or an MPI call failed) and a run-through recovery (ULFM) is due:
  // leave the compute phase and call loop(), which repairs and restores the
  // newest checkpoint (work since then is redone). The repair needs every
  // survivor, so a long compute phase should poll this. Any thread, no MPI
  // call; always false without ULFM.
  static bool interrupted();

  // FMI-style: the iteration to execute next (restoring on the first call if
  // there is data), or kExit. Checkpoints when the interval, Young/Daly or a
  // request says so.
  virtual Result<long> loop() = 0;

  // FTI-style.
  virtual Result<CheckpointReport> checkpoint(std::optional<Level> level, long iteration) = 0;
  virtual bool restartAvailable() const = 0;
  virtual Result<RestartReport> recover() = 0;

  // Waits until the background L5 flush (if any) is on disk; its error, if it failed.
  virtual Status waitFlush() = 0;

  // Waits for a running flush, frees shared memory unless a relaunch needs it,
  // disconnects. Returns the exit code the program should end with.
  virtual int finalize() = 0;
};

}  // namespace ftb::mpi_bridge
