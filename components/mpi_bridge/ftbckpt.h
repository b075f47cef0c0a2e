/* ftbckpt: an in-memory, erasure-coded checkpoint runtime for MPI programs,
 * driven by ftb events. C API (usable from C, C++ and Fortran via ISO_C_BINDING).
 *
 * Two styles:
 *
 *   FMI-style loop (the runtime decides when to checkpoint and restores itself):
 *     ftbckpt_init(MPI_COMM_WORLD);
 *     ftbckpt_protect(0, grid, grid_bytes);
 *     for (;;) {
 *       int it = ftbckpt_loop();          // restores on the first call after a relaunch
 *       if (it < 0) break;                // FTBCKPT_EXIT: migration or stop requested
 *       if (it >= iterations) break;
 *       step(grid);
 *     }
 *     int rc = ftbckpt_finalize();        // 0, or FTBCKPT_EXIT_RELAUNCH (75)
 *
 *   FTI/SCR-style set:
 *     ftbckpt_init(comm); ftbckpt_protect(...);
 *     if (ftbckpt_restart_available()) ftbckpt_recover();
 *     ... ftbckpt_checkpoint(FTBCKPT_L4); ...
 *
 * Levels (each includes L1): L1 copy in node shared memory that outlives the
 * process; L2 + copy on a partner rank of another node; L3 + XOR parity over a
 * group; L4 + Reed-Solomon parity tolerating m lost group members; L5 L1 + an
 * asynchronous bandwidth-capped flush to FTBCKPT_FLUSH_DIR.
 *
 * Configuration comes from the environment (components/mpi_bridge/README.md):
 * FTBCKPT_LEVEL, FTBCKPT_INTERVAL, FTBCKPT_MTBF, FTBCKPT_GROUP_SIZE, FTBCKPT_RS_M,
 * FTBCKPT_FLUSH_DIR, FTBCKPT_FLUSH_MBPS, FTBCKPT_NODE_MAP, FTBCKPT_DOMAIN_MAP,
 * FTB_NODE_NAME, FTB_JOB_ID, FTB_CORR_ID, FTB_AGENT_ENDPOINT.
 *
 * With FTBCKPT_ENCODER=node the lowest process of every node in the
 * communicator given to ftbckpt_init becomes the node's dedicated encoder: it
 * never returns from ftbckpt_init (it exits when the application's ranks have
 * finalized), and the application computes on ftbckpt_comm(), which leaves the
 * encoders out.
 *
 * Every call is collective over ftbckpt_comm(), except
 * ftbckpt_protect, ftbckpt_last_error, ftbckpt_restart_available, ftbckpt_comm, ftbckpt_node,
 * ftbckpt_watch_comm, ftbckpt_unwatch_comm and ftbckpt_interrupted.
 * Return codes: FTBCKPT_SUCCESS or a negative FTBCKPT_E* code; ftbckpt_last_error()
 * says what happened. Not thread-safe: call from the thread that calls MPI,
 * except ftbckpt_interrupted (any thread).
 */
#ifndef FTB_COMPONENTS_MPI_BRIDGE_FTBCKPT_H_
#define FTB_COMPONENTS_MPI_BRIDGE_FTBCKPT_H_

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftbckpt_level {
  FTBCKPT_DEFAULT = 0, /* the configured level (FTBCKPT_LEVEL) */
  FTBCKPT_L1 = 1,
  FTBCKPT_L2 = 2,
  FTBCKPT_L3 = 3,
  FTBCKPT_L4 = 4,
  FTBCKPT_L5 = 5
};

enum ftbckpt_code {
  FTBCKPT_SUCCESS = 0,
  FTBCKPT_EXIT = -1,        /* ftbckpt_loop: leave the loop and call ftbckpt_finalize */
  FTBCKPT_EINVAL = -2,      /* bad argument or configuration */
  FTBCKPT_ESTATE = -3,      /* call out of order (e.g. before ftbckpt_init) */
  FTBCKPT_EIO = -4,         /* shared memory, file or MPI failure */
  FTBCKPT_ENORESTORE = -5   /* checkpoint data exists but no level can restore it
                               (e.g. a buffer failed its checksum and had no redundancy) */
};

/* ftbckpt_finalize's return value after a migration: the job must be relaunched
 * with the new placement (the launcher bridge knows this code). */
#define FTBCKPT_EXIT_RELAUNCH 75

int ftbckpt_init(MPI_Comm comm);
/* Registers (or re-registers) buffer `id`; the pointer must stay valid. */
int ftbckpt_protect(int id, void* ptr, size_t bytes);
/* Loop style: returns the iteration to execute next (>= 0) or FTBCKPT_EXIT or an error. */
int ftbckpt_loop(void);
/* Checkpoint now at `level` (FTBCKPT_DEFAULT = configured), recording `iteration`. */
int ftbckpt_checkpoint(int level, long iteration);
/* 1 if ftbckpt_init found checkpoint data of this job (a relaunch), else 0. */
int ftbckpt_restart_available(void);
/* Restores every protected buffer; returns the iteration recorded with the checkpoint (>= 0). */
long ftbckpt_recover(void);
/* Frees this rank's shared memory unless a relaunch is pending; returns the exit code to use. */
int ftbckpt_finalize(void);
const char* ftbckpt_last_error(void);
/* The communicator the application computes on: the one given to ftbckpt_init,
 * until a run-through recovery (an MPI with ULFM) replaces a lost rank and
 * builds a new one. Take it after ftbckpt_init (in a replacement process it is
 * not MPI_COMM_WORLD) and again after every ftbckpt_loop. */
MPI_Comm ftbckpt_comm(void);
/* A communicator the application derived from ftbckpt_comm() (MPI_Comm_split,
 * MPI_Comm_dup): on an MPI with ULFM, when a rank dies the runtime revokes it
 * together with the job's, so a rank waiting in it returns an error (and goes
 * to ftbckpt_loop) instead of waiting for ranks that left for the repair; its
 * errors are returned, not fatal. Call ftbckpt_unwatch_comm before freeing it.
 * Without ULFM both do nothing. Not collective. */
int ftbckpt_watch_comm(MPI_Comm comm);
int ftbckpt_unwatch_comm(MPI_Comm comm);
/* 1 once a peer of this job is known lost (its last will came over the ftb
 * backplane, or an MPI call failed) and a run-through recovery (ULFM) is due,
 * else 0. Leave the compute phase and call ftbckpt_loop(): it repairs the
 * communicator and restores the newest checkpoint (the work since it is done
 * again). The repair needs every survivor, so a long compute phase should poll
 * this, e.g. between blocks. With FTBCKPT_LOCAL_ROLLBACK=1 a survivor's work
 * is kept: this stays 0 while it computes (it meets the repair at its next MPI
 * call on ftbckpt_comm(), which carries on), and becomes 1 only when that
 * repair rolled every rank back: the call returned an error; go to
 * ftbckpt_loop(). Any thread, no MPI call, cheap (an atomic load); always 0
 * without ULFM. */
int ftbckpt_interrupted(void);
/* The node this rank runs on, as the runtime names it (FTBCKPT_NODE_MAP entry,
 * FTB_NODE_NAME or the hostname); NULL before ftbckpt_init. */
const char* ftbckpt_node(void);

#ifdef __cplusplus
}
#endif

#endif /* FTB_COMPONENTS_MPI_BRIDGE_FTBCKPT_H_ */
