/* A Jacobi stencil over MPI that protects its grid with ftbckpt (C API).
 *
 *   mpirun -np 8 stencil --nx 256 --ny 256 --iterations 200 --checkpoint-every 20
 *
 * Each rank owns ny rows of nx columns (1-D decomposition, halo rows exchanged
 * with its neighbours); the top edge of the global domain is held at 1.0. The
 * run ends with one line from rank 0:
 *   RESULT iterations=<n> checksum=<hex>
 * a CRC32C over every rank's final block, so a run with failures and restarts
 * can be compared bit for bit with a failure-free run.
 *
 * --crash-at N --crash-node NODE: at iteration N, every rank on NODE (its
 * FTB_NODE_NAME or FTBCKPT_NODE_MAP entry) kills itself with SIGKILL (failure
 * injection for tests; a relaunch that should finish is started without it).
 * --crash-once: only a rank that did not restore a checkpoint kills itself, so
 * a relaunch with the same arguments (a launcher's) or a replacement spawned
 * by a run-through recovery on the same node runs on.
 * --iteration-ms MS: sleep per iteration (so events can arrive mid-run).
 * --stall-at N [--stall-ms MS]: at iteration N, once, every rank that did not
 * restore a checkpoint enters a compute phase of MS ms (60000) without MPI
 * calls, polling ftbckpt_interrupted() each millisecond: a rank caught there
 * when a peer dies leaves it and goes to ftbckpt_loop (the run-through
 * recovery redoes the work since the newest checkpoint). It says which way
 * the phase ended. --stall-except R: rank R does not stall; it goes on to its
 * next exchange and waits there in MPI.
 * --hang-at N [--hang-rank R]: at iteration N, rank R (1) hangs for good in
 * its own code (a busy loop, no MPI, no ftbckpt calls) unless it restored a
 * checkpoint: for the runtime's watchdog (FTB_MPI_RANK_HUNG) and ftb-run's
 * `replace` rule, which ends it.
 * --reduce-at N: at iteration N, an MPI_Reduce of every block's first cell to
 * rank 0, which the result does not use: a call local rollback's log does not
 * cover, so a failure in that epoch falls back to global rollback.
 * --trace: every rank says when it finished (or abandoned) each iteration's
 * sweep and the CPU time the sweep took, for a benchmark to count the work a
 * recovery repeats:
 *   stencil: rank R iteration I done|abandoned cpu_us C time S.US
 * Exit codes: 0 done; 75 relaunch me (migration); 1 error.
 */
#include <isa-l/crc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "components/mpi_bridge/ftbckpt.h"

struct options {
  int nx, ny, iterations, checkpoint_every, crash_at, crash_once, iteration_ms, stall_at, stall_ms, stall_except, hang_at,
      hang_rank, reduce_at, trace;
  const char* crash_node;
};

static int parse(int argc, char** argv, struct options* o) {
  o->nx = 128;
  o->ny = 128;
  o->iterations = 100;
  o->checkpoint_every = 0;
  o->crash_at = -1;
  o->iteration_ms = 0;
  o->crash_node = NULL;
  o->crash_once = 0;
  o->trace = 0;
  o->stall_at = -1;
  o->stall_except = -1;
  o->stall_ms = 60000;
  o->hang_at = -1;
  o->hang_rank = 1;
  o->reduce_at = -1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--crash-once")) { /* the options without a value */
      o->crash_once = 1;
      continue;
    }
    if (!strcmp(a, "--trace")) {
      o->trace = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "stencil: %s needs a value\n", a);
      return 0;
    }
    const char* v = argv[++i];
    if (!strcmp(a, "--nx")) o->nx = atoi(v);
    else if (!strcmp(a, "--ny")) o->ny = atoi(v);
    else if (!strcmp(a, "--iterations")) o->iterations = atoi(v);
    else if (!strcmp(a, "--checkpoint-every")) o->checkpoint_every = atoi(v);
    else if (!strcmp(a, "--crash-at")) o->crash_at = atoi(v);
    else if (!strcmp(a, "--crash-node")) o->crash_node = v;
    else if (!strcmp(a, "--iteration-ms")) o->iteration_ms = atoi(v);
    else if (!strcmp(a, "--stall-at")) o->stall_at = atoi(v);
    else if (!strcmp(a, "--stall-except")) o->stall_except = atoi(v);
    else if (!strcmp(a, "--stall-ms")) o->stall_ms = atoi(v);
    else if (!strcmp(a, "--hang-at")) o->hang_at = atoi(v);
    else if (!strcmp(a, "--hang-rank")) o->hang_rank = atoi(v);
    else if (!strcmp(a, "--reduce-at")) o->reduce_at = atoi(v);
    else {
      fprintf(stderr, "stencil: unknown option %s (--nx --ny --iterations --checkpoint-every --crash-at --crash-node --crash-once --trace --iteration-ms --stall-at --stall-ms --stall-except --hang-at --hang-rank --reduce-at)\n", a);
      return 0;
    }
  }
  if (o->nx < 1 || o->ny < 1 || o->iterations < 0) {
    fprintf(stderr, "stencil: --nx and --ny must be >= 1, --iterations >= 0\n");
    return 0;
  }
  return 1;
}


/* A compute phase of up to `ms` without MPI calls; 1 if it was interrupted
 * because a peer died (ftbckpt_interrupted), 0 if it ran its full length. */
static int compute_phase(int ms) {
  const struct timespec one_ms = {0, 1000000L};
  for (int i = 0; i < ms; ++i) {
    if (ftbckpt_interrupted()) return 1;
    nanosleep(&one_ms, NULL);
  }
  return 0;
}

/* Row 1 goes up and row ny down; rows 0 and ny+1 come from up and down.
 * Nonblocking rather than two MPI_Sendrecv: Open MPI 5.0.7's MPI_Sendrecv
 * segfaults on a revoked communicator when its source is MPI_PROC_NULL (an
 * edge rank's), where these calls return MPIX_ERR_REVOKED. */
static int exchange_halos(double* grid, int w, int ny, int up, int down, MPI_Comm comm) {
  MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int rc = MPI_Irecv(&grid[(ny + 1) * w], w, MPI_DOUBLE, down, 0, comm, &req[0]);
  if (rc == MPI_SUCCESS) rc = MPI_Irecv(&grid[0], w, MPI_DOUBLE, up, 1, comm, &req[1]);
  if (rc == MPI_SUCCESS) rc = MPI_Isend(&grid[1 * w], w, MPI_DOUBLE, up, 0, comm, &req[2]);
  if (rc == MPI_SUCCESS) rc = MPI_Isend(&grid[ny * w], w, MPI_DOUBLE, down, 1, comm, &req[3]);
  /* Every posted request completes (in error on a revoked communicator). */
  const int wait_rc = MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  return rc != MPI_SUCCESS ? rc : wait_rc;
}

/* A hang in the application's own code: busy forever, no MPI, no ftbckpt. */
static void hang_forever(void) {
  volatile unsigned long spins = 0;
  for (;;) ++spins;
}

/* --trace: one line per sweep, its CPU time and the wall clock at its end. */
static void trace_sweep(int rank, int it, int done, const struct timespec* cpu_start) {
  struct timespec cpu, now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  clock_gettime(CLOCK_REALTIME, &now);
  const long cpu_us = (cpu.tv_sec - cpu_start->tv_sec) * 1000000L + (cpu.tv_nsec - cpu_start->tv_nsec) / 1000;
  fprintf(stderr, "stencil: rank %d iteration %d %s cpu_us %ld time %ld.%06ld\n", rank, it, done ? "done" : "abandoned",
          cpu_us, (long)now.tv_sec, now.tv_nsec / 1000);
}

static void die(const char* what, int rc) {
  fprintf(stderr, "stencil: %s failed (%d): %s\n", what, rc, ftbckpt_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  /* THREAD_MULTIPLE lets ftbckpt run the group part of checkpoints in the
   * background when FTBCKPT_ASYNC=1; this program itself calls MPI from one thread. */
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  struct options o;
  if (!parse(argc, argv, &o)) {
    MPI_Finalize();
    return 2;
  }
  if (o.checkpoint_every > 0) {
    char text[32];
    snprintf(text, sizeof text, "%d", o.checkpoint_every);
    setenv("FTBCKPT_INTERVAL", text, 1);
  }
  int rc = ftbckpt_init(MPI_COMM_WORLD);
  if (rc) die("ftbckpt_init", rc);
  /* The runtime's communicator, not MPI_COMM_WORLD: a replacement spawned by a
   * run-through recovery (ULFM) joins the job through it, and it changes after
   * every such recovery. */
  MPI_Comm comm = ftbckpt_comm();
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int restarted = ftbckpt_restart_available();
  const int crash_here = o.crash_node && !(o.crash_once && restarted) && !strcmp(o.crash_node, ftbckpt_node());

  const int w = o.nx + 2, h = o.ny + 2;
  const size_t bytes = (size_t)w * h * sizeof(double);
  double* cur = calloc((size_t)w * h, sizeof(double));
  double* next = calloc((size_t)w * h, sizeof(double));
  /* A restart overwrites the grid with the checkpoint's: computing the initial
     state (and taking a page fault per 4 KiB of it) would be wasted time. */
  for (int y = 1; y <= o.ny && !restarted; ++y) {
    for (int x = 1; x <= o.nx; ++x) {
      long gy = (long)rank * o.ny + y;
      cur[y * w + x] = (double)((gy * 131 + x * 71) % 97) / 97.0;
    }
  }
  if (rank == 0) {
    for (int x = 0; x < w; ++x) cur[x] = next[x] = 1.0; /* the hot top edge */
  }
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;

  int first = 1, stalled = 0;
  for (;;) {
    if ((rc = ftbckpt_protect(0, cur, bytes))) die("ftbckpt_protect", rc);
    int it = ftbckpt_loop();
    if (it == FTBCKPT_EXIT) {
      rc = ftbckpt_finalize();
      if (rank == 0) fprintf(stderr, "stencil: leaving at the runtime's request, exit code %d\n", rc);
      MPI_Finalize();
      return rc;
    }
    if (it < 0) die("ftbckpt_loop", it);
    comm = ftbckpt_comm();
    if (restarted && rank == 0 && first) fprintf(stderr, "stencil: resumed at iteration %d\n", it);
    first = 0;
    if (it >= o.iterations) break;
    if (crash_here && it == o.crash_at) {
      struct timespec now;
      clock_gettime(CLOCK_REALTIME, &now);
      fprintf(stderr, "stencil: rank %d kills itself at iteration %d, time %ld.%06ld\n", rank, it, (long)now.tv_sec,
              now.tv_nsec / 1000);
      raise(SIGKILL);
    }
    if (it == o.hang_at && rank == o.hang_rank && !restarted) {
      fprintf(stderr, "stencil: rank %d hangs at iteration %d\n", rank, it);
      hang_forever();
    }
    if (it == o.stall_at && !restarted && !stalled && rank != o.stall_except) {
      stalled = 1;
      fprintf(stderr, "stencil: rank %d computes for up to %d ms at iteration %d\n", rank, o.stall_ms, it);
      if (compute_phase(o.stall_ms)) {
        fprintf(stderr, "stencil: rank %d left its compute phase at iteration %d: interrupted\n", rank, it);
        continue; /* to ftbckpt_loop, which repairs and restores */
      }
      fprintf(stderr, "stencil: rank %d: compute phase at iteration %d ran its full %d ms, never interrupted\n", rank,
              it, o.stall_ms);
    }
    if ((rc = exchange_halos(cur, w, o.ny, up, down, comm)) != MPI_SUCCESS) {
      /* A peer died or left for the repair (ULFM): ftbckpt_loop repairs and restores. */
      if (ftbckpt_interrupted()) continue;
      die("the halo exchange", rc);
    }
    if (rank == 0) {
      for (int x = 0; x < w; ++x) cur[x] = 1.0;
    }
    double corner_sum = 0;
    if (it == o.reduce_at && (rc = MPI_Reduce(&cur[w + 1], &corner_sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm)) != MPI_SUCCESS) {
      if (ftbckpt_interrupted()) continue;
      die("MPI_Reduce", rc);
    }
    /* Every 64 rows: has a peer died? Then this iteration's work is moot (the
     * recovery restores the newest checkpoint): straight to ftbckpt_loop. */
    int interrupted = 0;
    struct timespec sweep_start;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &sweep_start);
    for (int y = 1; y <= o.ny && !interrupted; ++y) {
      for (int x = 1; x <= o.nx; ++x) {
        next[y * w + x] = 0.25 * (cur[(y - 1) * w + x] + cur[(y + 1) * w + x] + cur[y * w + x - 1] + cur[y * w + x + 1]);
      }
      interrupted = (y & 63) == 0 && ftbckpt_interrupted();
    }
    if (o.trace) trace_sweep(rank, it, !interrupted, &sweep_start);
    if (interrupted) continue;
    double* t = cur;
    cur = next;
    next = t;
    if (o.iteration_ms > 0) {
      struct timespec ts = {o.iteration_ms / 1000, (o.iteration_ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
    }
  }

  /* The interior of every block, checksummed per rank, then over all ranks in order. */
  unsigned int crc = 0;
  for (int y = 1; y <= o.ny; ++y) crc = crc32_iscsi((unsigned char*)&cur[y * w + 1], o.nx * (int)sizeof(double), crc);
  unsigned int* all = rank == 0 ? malloc(sizeof(unsigned int) * size) : NULL;
  MPI_Gather(&crc, 1, MPI_UNSIGNED, all, 1, MPI_UNSIGNED, 0, comm);
  if (rank == 0) {
    unsigned int total = crc32_iscsi((unsigned char*)all, size * (int)sizeof(unsigned int), 0);
    printf("RESULT iterations=%d checksum=%08x\n", o.iterations, total);
    fflush(stdout);
    free(all);
  }
  rc = ftbckpt_finalize();
  free(cur);
  free(next);
  MPI_Finalize();
  return rc;
}
