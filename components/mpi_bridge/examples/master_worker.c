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
 * Before it, every worker's hash of the items it received (in order) must
 * equal the master's of the items it handed that worker: a recovery that
 * replayed the master's outcomes in another order ends the run with an error.
 * --nonblocking: the master posts a receive per worker it handed an item and
 * takes the answers with MPI_Waitany (even rounds) or MPI_Waitsome (odd), in
 * the order they complete; with --any-source those receives are from
 * MPI_ANY_SOURCE (which answer each one takes depends on timing too).
 * --gather: every round also gathers each worker's count of items done at
 * the master, whose sum must equal its count of answers.
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
  unsigned long handed[1024]; /* per worker: the hash of the items handed to it */
};

/* A worker's: items done, and the hash of the items it received. */
struct worker {
  long done;
  unsigned long received;
};

/* Order-dependent: the same items in another order give another hash. */
static unsigned long mix(unsigned long hash, long item) { return hash * 1000003UL + (unsigned long)item + 1; }

/* Rank 0's round with --nonblocking: a receive posted per worker handed an
 * item (from that worker, or any with `any_source`), the answers taken as
 * they complete (Waitany or Waitsome). */
static void take_answers_nonblocking(struct table* t, double* values, long handed, int round, int any_source,
                                     MPI_Comm comm) {
  MPI_Request req[1024];
  double answer[1024][2];
  for (long w = 0; w < handed; ++w) {
    MPI_Irecv(answer[w], 2, MPI_DOUBLE, any_source ? MPI_ANY_SOURCE : t->order[w], kAnswer, comm, &req[w]);
  }
  long taken = 0;
  while (taken < handed) {
    int n = 0, indices[1024];
    MPI_Status statuses[1024];
    if (round % 2 == 0) {
      n = 1;
      MPI_Waitany((int)handed, req, &indices[0], &statuses[0]);
    } else {
      MPI_Waitsome((int)handed, req, &n, indices, statuses);
    }
    for (int k = 0; k < n; ++k) {
      const int w = indices[k];
      values[(long)answer[w][0]] = answer[w][1];
      t->order[taken++] = statuses[k].MPI_SOURCE;
      ++t->answers;
    }
  }
}

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
  int checkpoint_every = 0, crash_at = -1, crash_rank = -1, nonblocking = 0, any_source = 0, gather = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--nonblocking")) { /* the options without a value */
      nonblocking = 1;
      continue;
    }
    if (!strcmp(a, "--any-source")) {
      any_source = 1;
      continue;
    }
    if (!strcmp(a, "--gather")) {
      gather = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "master_worker: %s needs a value\n", a);
      MPI_Finalize();
      return 2;
    }
    const char* v = argv[++i];
    if (!strcmp(a, "--items")) items = atol(v);
    else if (!strcmp(a, "--checkpoint-every")) checkpoint_every = atoi(v);
    else if (!strcmp(a, "--crash-at")) crash_at = atoi(v);
    else if (!strcmp(a, "--crash-rank")) crash_rank = atoi(v);
    else {
      fprintf(stderr, "master_worker: unknown option %s (--items --checkpoint-every --crash-at --crash-rank --nonblocking --any-source --gather)\n", a);
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
  static struct table t; /* zeroed */
  for (int w = 0; w < workers; ++w) t.order[w] = w + 1;
  double* values = calloc((size_t)items, sizeof(double));
  struct worker mine = {0, 0};
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
        if (item != kNoItem) t.handed[t.order[w]] = mix(t.handed[t.order[w]], item);
        MPI_Send(&item, 1, MPI_LONG, t.order[w], kWork, comm);
      }
      if (nonblocking) take_answers_nonblocking(&t, values, handed, round, any_source, comm);
      for (long k = 0; k < handed && !nonblocking; ++k) {
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
        ++mine.done;
        mine.received = mix(mine.received, item);
      }
    }
    long done = rank == 0 ? 0 : mine.done, total = 0, answers = t.answers;
    MPI_Allreduce(&done, &total, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Bcast(&answers, 1, MPI_LONG, 0, comm);
    if (total != answers) die("the count of items done agreeing with the master's answers; total", (int)total);
    if (gather) {
      long dones[1024] = {0}, sum = 0;
      MPI_Gather(&done, 1, MPI_LONG, dones, 1, MPI_LONG, 0, comm);
      for (int r = 0; r < size && rank == 0; ++r) sum += dones[r];
      if (rank == 0 && sum != t.answers) die("the gathered counts of items done agreeing with the answers; sum", (int)sum);
    }
  }
  unsigned long* received = rank == 0 ? malloc(sizeof(unsigned long) * size) : NULL;
  MPI_Gather(&mine.received, 1, MPI_UNSIGNED_LONG, received, 1, MPI_UNSIGNED_LONG, 0, comm);
  if (rank == 0) {
    for (int w = 1; w < size; ++w) {
      if (received[w] != t.handed[w]) {
        fprintf(stderr, "master_worker: worker %d received other items than the master's record says it handed it\n", w);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    free(received);
    unsigned int crc = crc32_iscsi((unsigned char*)values, (int)(items * (long)sizeof(double)), 0);
    printf("RESULT items=%ld checksum=%08x\n", items, crc);
    fflush(stdout);
  }
  rc = ftbckpt_finalize();
  free(values);
  MPI_Finalize();
  return rc;
}
