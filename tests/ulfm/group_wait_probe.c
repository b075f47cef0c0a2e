/* The run-through hang of issue 18, made deterministic (tests/ulfm).
 *
 * 4 ranks on "nodes" n0..n3 with FTBCKPT_GROUP_SIZE=2: checkpoint groups
 * {0,1} and {2,3}. After a checkpoint, rank 3 SIGKILLs itself; rank 0 notices
 * at once (rank 3's last will over the backplane, or a receive from rank 3)
 * and goes to the repair at its next ftbckpt_loop; rank 1, past the same
 * ftbckpt_loop (a barrier before the kill), starts a checkpoint, as a rank
 * that ran ahead of its group does in the stencil. Its group {0,1} holds no
 * dead rank, and rank 0 never joins: unless the runtime revokes the group's
 * communicator too, rank 1 waits in it forever, and so does the repair's
 * shrink, which needs rank 1. A replacement for rank 3 is spawned with the same
 * arguments and joins in ftbckpt_init.
 *
 * With --app-comm, rank 1 waits instead in an MPI_Allreduce on a communicator
 * the application split itself ({0,1} and {2,3}), given to ftbckpt_watch_comm:
 * the runtime must revoke it with the job's, or the same hang follows.
 *
 * Each rank counts its iterations into a protected value; the run ends with
 *   RESULT values=<v0>,<v1>,<v2>,<v3>
 * from rank 0, each v = rank * 1000 + iterations, whatever was restored.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components/mpi_bridge/ftbckpt.h"

enum { kIterations = 4, kCheckpointAt = 1, kFailAt = 2 };

static void die(const char* what, int rc) {
  fprintf(stderr, "group_wait_probe: %s failed (%d): %s\n", what, rc, ftbckpt_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int app_comm = argc > 1 && !strcmp(argv[1], "--app-comm");
  int rc = ftbckpt_init(MPI_COMM_WORLD);
  if (rc) die("ftbckpt_init", rc);
  MPI_Comm comm = ftbckpt_comm();
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size != 4) die("the probe needs 4 ranks; size", size);
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  const int replacement = parent != MPI_COMM_NULL; /* spawned by the survivors' repair */
  long value = rank * 1000L;
  int injected = replacement; /* the failure happens once, in the first run */
  const MPI_Comm first_comm = comm; /* a repair replaces it */
  for (;;) {
    if ((rc = ftbckpt_protect(0, &value, sizeof value))) die("ftbckpt_protect", rc);
    int it = ftbckpt_loop();
    if (it < 0) die("ftbckpt_loop", it);
    comm = ftbckpt_comm();
    /* Repaired before reaching the failure's iteration (rank 0 may hear of the
     * death before it calls MPI_Recv): the failure is over for everyone. */
    if (comm != first_comm) injected = 1;
    if (it >= kIterations) break;
    if (it == kCheckpointAt && (rc = ftbckpt_checkpoint(FTBCKPT_DEFAULT, it))) die("ftbckpt_checkpoint", rc);
    if (it == kFailAt && !injected) {
      injected = 1;
      /* Every rank is past this iteration's ftbckpt_loop before rank 3 dies:
       * otherwise rank 1 could hear the last will inside that call and be
       * repaired there, never starting the checkpoint this probe is about. */
      MPI_Barrier(comm);
      MPI_Comm pair = MPI_COMM_NULL;
      if (app_comm) {
        MPI_Comm_split(comm, rank / 2, rank, &pair);
        if ((rc = ftbckpt_watch_comm(pair))) die("ftbckpt_watch_comm", rc);
      }
      if (rank == 3) {
        fprintf(stderr, "group_wait_probe: rank 3 kills itself at iteration %d\n", it);
        raise(SIGKILL);
      }
      if (rank == 0) {
        int x = 0;
        rc = MPI_Recv(&x, 1, MPI_INT, 3, 0, comm, MPI_STATUS_IGNORE);
        fprintf(stderr, "group_wait_probe: rank 0: receive from the dead rank 3 returned %d\n", rc);
      }
      if (rank == 1 && app_comm) {
        int one = 1, sum = 0;
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, pair);
        fprintf(stderr, "group_wait_probe: rank 1: allreduce on the application's communicator returned %d\n", rc);
      } else if (rank == 1) {
        rc = ftbckpt_checkpoint(FTBCKPT_DEFAULT, it);
        fprintf(stderr, "group_wait_probe: rank 1: checkpoint while its group left returned %d: %s\n", rc,
                rc ? ftbckpt_last_error() : "");
      }
      /* Revoked now; not freed, like the runtime's own revoked communicators
       * (freeing one after a repair is not safe in Open MPI 5.0.7). */
      if (app_comm && (rc = ftbckpt_unwatch_comm(pair))) die("ftbckpt_unwatch_comm", rc);
    }
    ++value;
  }
  long all[4] = {0};
  MPI_Gather(&value, 1, MPI_LONG, all, 1, MPI_LONG, 0, comm);
  if (rank == 0) {
    printf("RESULT values=%ld,%ld,%ld,%ld\n", all[0], all[1], all[2], all[3]);
    fflush(stdout);
  }
  rc = ftbckpt_finalize();
  MPI_Finalize();
  return rc;
}
