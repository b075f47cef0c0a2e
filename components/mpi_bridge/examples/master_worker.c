/* A master-worker loop over MPI protected by ftbckpt: wildcard receives and
 * collectives, for local rollback's log (docs/FTBCKPT.md, "Local rollback").
 *
 *   mpirun -np 4 master_worker --items 600 --checkpoint-every 10
 *
 * Rank 0 hands out items in rounds, one to each worker; a worker computes the
 * item's value (a logistic map, in floating point) and sends it back. The
 * master takes the answers as they come (MPI_ANY_SOURCE) and gives the next
 * round's lowest items to the workers that answered first, so who computes
 * what depends on timing, while the table of values does not. After each
 * round an MPI_Allreduce counts the items done and an MPI_Bcast spreads the
 * master's count of answers. The run ends with one line from rank 0:
 *   RESULT items=<n> checksum=<hex>
 * a CRC32C of the table of values, the same with or without failures.
 * --crash-at N --crash-rank R: rank R SIGKILLs itself at round N unless it
 * restored a checkpoint (failure injection for tests).
 * Exit codes: 0 done; 75 relaunch me (migration); 1 error.
 */
#include <isa-l/crc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components/mpi_bridge/ftbckpt.h"

enum { kWork = 1, kAnswer = 2, kNoItem = -1 };

/* The master's protected state; a worker's is its own count of items. */
struct table {
  long next_item;   /* the lowest item not handed out yet */
  long answers;     /* answers received so far */
  int order[1024];  /* the workers in the order they answered last round */
};

static double value_of(long item) {
  double x = 0.1 + (double)(item % 997) / 1250.0;
  for (int k = 0; k < 20000; ++k) x = 3.9 * x * (1.0 - x);
  return x;
}

static void die(const char* what, int rc) {
  fprintf(stderr, "master_worker: %s failed (%d): %s\n", what, rc, ftbckpt_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  long items = 600;
  int checkpoint_every = 0, crash_at = -1, crash_rank = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--items")) items = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--checkpoint-every")) checkpoint_every = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--crash-at")) crash_at = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--crash-rank")) crash_rank = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "master_worker: unknown option %s (--items --checkpoint-every --crash-at --crash-rank)\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  if (checkpoint_every > 0) {
    char text[32];
    snprintf(text, sizeof text, "%d", checkpoint_every);
    setenv("FTBCKPT_INTERVAL", text, 1);
  }
  int rc = ftbckpt_init(MPI_COMM_WORLD);
  if (rc) die("ftbckpt_init", rc);
  MPI_Comm comm = ftbckpt_comm();
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2 || size > 1024 || items < 1) die("2-1024 ranks and --items >= 1 are needed; size", size);
  const int workers = size - 1;
  const int restarted = ftbckpt_restart_available();
  struct table t = {0, 0, {0}};
  for (int w = 0; w < workers; ++w) t.order[w] = w + 1;
  double* values = calloc((size_t)items, sizeof(double));
  long mine = 0; /* a worker's items done */
  const long rounds = (items + workers - 1) / workers;

  for (;;) {
    if (rank == 0) {
      if ((rc = ftbckpt_protect(0, &t, sizeof t)) || (rc = ftbckpt_protect(1, values, (size_t)items * sizeof(double)))) {
        die("ftbckpt_protect", rc);
      }
    } else if ((rc = ftbckpt_protect(0, &mine, sizeof mine))) {
      die("ftbckpt_protect", rc);
    }
    const int round = ftbckpt_loop();
    if (round == FTBCKPT_EXIT) {
      rc = ftbckpt_finalize();
      MPI_Finalize();
      return rc;
    }
    if (round < 0) die("ftbckpt_loop", round);
    comm = ftbckpt_comm();
    if (round >= rounds) break;
    if (rank == crash_rank && round == crash_at && !restarted) {
      fprintf(stderr, "master_worker: rank %d kills itself at round %d\n", rank, round);
      raise(SIGKILL);
    }
    if (rank == 0) {
      /* The lowest items to the workers that answered first last round. */
      long handed = 0;
      for (int w = 0; w < workers; ++w) {
        long item = t.next_item < items ? t.next_item++ : kNoItem;
        handed += item != kNoItem;
        MPI_Send(&item, 1, MPI_LONG, t.order[w], kWork, comm);
      }
      for (long k = 0; k < handed; ++k) {
        double answer[2];
        MPI_Status status;
        MPI_Recv(answer, 2, MPI_DOUBLE, MPI_ANY_SOURCE, kAnswer, comm, &status);
        values[(long)answer[0]] = answer[1];
        t.order[k] = status.MPI_SOURCE;
        ++t.answers;
      }
      /* Workers without an item this round answer nothing: they go last. */
      for (int w = 1, k = (int)handed; w <= workers && k < workers; ++w) {
        int seen = 0;
        for (int j = 0; j < k; ++j) seen |= t.order[j] == w;
        if (!seen) t.order[k++] = w;
      }
    } else {
      long item;
      MPI_Recv(&item, 1, MPI_LONG, 0, kWork, comm, MPI_STATUS_IGNORE);
      if (item != kNoItem) {
        double answer[2] = {(double)item, value_of(item)};
        MPI_Send(answer, 2, MPI_DOUBLE, 0, kAnswer, comm);
        ++mine;
      }
    }
    long done = rank == 0 ? 0 : mine, total = 0, answers = t.answers;
    MPI_Allreduce(&done, &total, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Bcast(&answers, 1, MPI_LONG, 0, comm);
    if (total != answers) die("the count of items done agreeing with the master's answers; total", (int)total);
  }
  if (rank == 0) {
    unsigned int crc = crc32_iscsi((unsigned char*)values, (int)(items * (long)sizeof(double)), 0);
    printf("RESULT items=%ld checksum=%08x\n", items, crc);
    fflush(stdout);
  }
  rc = ftbckpt_finalize();
  free(values);
  MPI_Finalize();
  return rc;
}
