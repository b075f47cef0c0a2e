/* The bare-ULFM reference of recovery_bench (issue 33): what Open MPI 5 alone
 * costs to run a job through a rank's death, with no ftb at all, on the same
 * shape as the bench's ftbckpt runs (RANKS x MIB MiB, one rank SIGKILLed).
 *
 *   mpirun --with-ft ulfm -np RANKS bare_ulfm_reference MIB ITERATIONS KILL_AT TAG
 *
 * Every rank keeps MIB MiB of doubles, adds 1 to each per iteration and sums
 * them into an MPI_Allreduce. After iteration KILL_AT - 1 each rank copies its
 * data into node memory (/dev/shm/bare-ulfm-TAG-<rank>, the counterpart of
 * ftbckpt's L1); at iteration KILL_AT the last rank writes the wall clock and
 * SIGKILLs itself. The survivors notice at their next MPI call, revoke,
 * shrink, spawn one replacement from the shrunk communicator, merge and split
 * keyed by the old ranks; every rank (the replacement from the dead rank's
 * copy) copies its data back from node memory and the job computes again
 * from the copy's iteration. Rank 0 prints one line
 *
 *   BARE_ULFM ranks=8 mib=64 detected_ms=.. shrunk_ms=.. spawned_ms=.. restored_ms=.. computing_ms=..
 *
 * (each from the kill) and, at the end, "RESULT checksum=<sum>", which a run
 * without the kill (KILL_AT 0) prints alike. Runs only in the trixie root
 * (tests/ulfm), which has the fault-tolerance extension. */
#include <fcntl.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double wallMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char* what, int rc) {
  fprintf(stderr, "bare_ulfm_reference: %s failed (%d)\n", what, rc);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void copyPath(char* path, size_t size, const char* tag, int rank) {
  snprintf(path, size, "/dev/shm/bare-ulfm-%s-%d", tag, rank);
}

/* Writes `iteration` and the data to node memory. */
static void saveCopy(const char* tag, int rank, int iteration, const double* data, size_t count) {
  char path[256];
  copyPath(path, sizeof path, tag, rank);
  FILE* f = fopen(path, "wb");
  if (f == NULL || fwrite(&iteration, sizeof iteration, 1, f) != 1 ||
      fwrite(data, sizeof *data, count, f) != count || fclose(f) != 0) {
    die("writing the copy in /dev/shm", 0);
  }
}

/* Reads a copy back; returns its iteration. */
static int loadCopy(const char* tag, int rank, double* data, size_t count) {
  char path[256];
  int iteration = 0;
  copyPath(path, sizeof path, tag, rank);
  FILE* f = fopen(path, "rb");
  if (f == NULL || fread(&iteration, sizeof iteration, 1, f) != 1 ||
      fread(data, sizeof *data, count, f) != count) {
    die("reading the copy in /dev/shm", 0);
  }
  fclose(f);
  return iteration;
}

static double killTimeMs(const char* tag) {
  char path[256];
  double ms = 0;
  snprintf(path, sizeof path, "/dev/shm/bare-ulfm-%s-kill", tag);
  FILE* f = fopen(path, "rb");
  if (f != NULL) {
    if (fread(&ms, sizeof ms, 1, f) != 1) ms = 0;
    fclose(f);
  }
  return ms;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s MIB ITERATIONS KILL_AT TAG\n", argv[0]);
    return 2;
  }
  const size_t count = (size_t)atoi(argv[1]) * 1024 * 1024 / sizeof(double);
  const int iterations = atoi(argv[2]), kill_at = atoi(argv[3]);
  const char* tag = argv[4];
  MPI_Init(&argc, &argv);
  double* data = malloc(count * sizeof *data);
  if (data == NULL) die("malloc", 0);

  MPI_Comm parent, comm;
  MPI_Comm_get_parent(&parent);
  int rank, size, next = 0;
  if (parent == MPI_COMM_NULL) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    for (size_t i = 0; i < count; ++i) data[i] = (double)(rank * 7 + i % 1000);
  } else {
    /* A replacement: merge (after the survivors), learn the rank it replaces, split. */
    MPI_Comm merged;
    int rc, old_rank = 0;
    if ((rc = MPI_Intercomm_merge(parent, 1, &merged)) != MPI_SUCCESS) die("MPI_Intercomm_merge", rc);
    if ((rc = MPI_Bcast(&old_rank, 1, MPI_INT, 0, merged)) != MPI_SUCCESS) die("MPI_Bcast", rc);
    if ((rc = MPI_Comm_split(merged, 0, old_rank, &comm)) != MPI_SUCCESS) die("MPI_Comm_split", rc);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rank = old_rank;
    next = loadCopy(tag, rank, data, count);
    MPI_Barrier(comm); /* the survivors' "restored" */
  }
  MPI_Comm_size(comm, &size);

  double sum = 0;
  for (int it = next; it < iterations;) {
    if (it == kill_at - 1 && kill_at > 0 && parent == MPI_COMM_NULL) saveCopy(tag, rank, it, data, count);
    if (it == kill_at && kill_at > 0 && rank == size - 1 && parent == MPI_COMM_NULL) {
      char path[256];
      snprintf(path, sizeof path, "/dev/shm/bare-ulfm-%s-kill", tag);
      const double now = wallMs();
      FILE* f = fopen(path, "wb");
      if (f != NULL) {
        fwrite(&now, sizeof now, 1, f);
        fclose(f);
      }
      raise(SIGKILL);
    }
    double local = 0;
    for (size_t i = 0; i < count; ++i) {
      data[i] += 1.0;
      local += data[i];
    }
    int rc = MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (rc == MPI_SUCCESS) {
      ++it;
      continue;
    }
    /* A rank died: revoke, shrink, spawn its replacement, merge, split. */
    const double detected = wallMs();
    MPIX_Comm_revoke(comm);
    MPI_Comm shrunk, inter, merged, repaired;
    if ((rc = MPIX_Comm_shrink(comm, &shrunk)) != MPI_SUCCESS) die("MPIX_Comm_shrink", rc);
    const double shrunk_at = wallMs();
    int survivors;
    MPI_Comm_size(shrunk, &survivors);
    if (survivors != size - 1) die("more than one rank lost", survivors);
    char host[MPI_MAX_PROCESSOR_NAME];
    int length;
    MPI_Get_processor_name(host, &length);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    int spawn_error;
    rc = MPI_Comm_spawn(argv[0], argv + 1, 1, info, 0, shrunk, &inter, &spawn_error);
    if (rc != MPI_SUCCESS) die("MPI_Comm_spawn", rc);
    if ((rc = MPI_Intercomm_merge(inter, 0, &merged)) != MPI_SUCCESS) die("MPI_Intercomm_merge", rc);
    int lost = size - 1; /* the last rank is the one that killed itself */
    if ((rc = MPI_Bcast(&lost, 1, MPI_INT, 0, merged)) != MPI_SUCCESS) die("MPI_Bcast", rc);
    if ((rc = MPI_Comm_split(merged, 0, rank, &repaired)) != MPI_SUCCESS) die("MPI_Comm_split", rc);
    const double spawned = wallMs();
    MPI_Comm_set_errhandler(repaired, MPI_ERRORS_RETURN);
    comm = repaired;
    it = loadCopy(tag, rank, data, count);
    MPI_Barrier(comm);
    const double restored = wallMs();
    /* Computing again: the first iteration's collective on the repaired communicator. */
    local = 0;
    for (size_t i = 0; i < count; ++i) {
      data[i] += 1.0;
      local += data[i];
    }
    if ((rc = MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm)) != MPI_SUCCESS) {
      die("MPI_Allreduce after the repair", rc);
    }
    ++it;
    if (rank == 0) {
      const double killed = killTimeMs(tag);
      printf("BARE_ULFM ranks=%d mib=%s detected_ms=%.0f shrunk_ms=%.0f spawned_ms=%.0f "
             "restored_ms=%.0f computing_ms=%.0f\n",
             size, argv[1], detected - killed, shrunk_at - killed, spawned - killed, restored - killed,
             wallMs() - killed);
      fflush(stdout);
    }
  }
  if (rank == 0) printf("RESULT checksum=%.17g\n", sum);
  fflush(stdout);
  if (kill_at > 0) {
    char path[256];
    copyPath(path, sizeof path, tag, rank);
    unlink(path);
    snprintf(path, sizeof path, "/dev/shm/bare-ulfm-%s-kill", tag);
    if (rank == 0) unlink(path);
  }
  free(data);
  MPI_Finalize();
  return 0;
}
