/* An MPI program built outside Bazel against the installed libftbckpt
 * (mpicc $(pkg-config --cflags --libs ftbckpt)): every rank protects a buffer,
 * takes an L1 checkpoint and finalizes; rank 0 prints one line when all did. */
#include <mpi.h>
#include <stdio.h>

#include <ftbckpt.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double data[256];
  for (int i = 0; i < 256; ++i) data[i] = rank * 1000.0 + i;

  int rc = ftbckpt_init(MPI_COMM_WORLD);
  if (rc == FTBCKPT_SUCCESS) rc = ftbckpt_protect(0, data, sizeof data);
  if (rc == FTBCKPT_SUCCESS) rc = ftbckpt_checkpoint(FTBCKPT_L1, 7);
  if (rc != FTBCKPT_SUCCESS) {
    fprintf(stderr, "rank %d: ftbckpt failed (%d): %s\n", rank, rc, ftbckpt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int ok = 1, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int exit_code = ftbckpt_finalize();
  if (rank == 0) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (all_ok == size) printf("%d ranks checkpointed with the installed libftbckpt\n", size);
  }
  MPI_Finalize();
  return exit_code;
}
