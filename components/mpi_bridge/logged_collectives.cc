// The collectives of logged_mpi.h, logged at the application's level by
// what a replacement replaying the epoch needs instead of running them again:
// the result this rank got (the same on every rank for a barrier, broadcast,
// allreduce or allgather), or for a gather, whose result only the root gets,
// this rank's contribution (a replacement of the root gathers the survivors'
// from their logs). Never the messages of the algorithm that computed it.
#include "components/mpi_bridge/interposition.h"

using ftb::mpi_bridge::MessageLog;
using ftb::mpi_bridge::interposition::logFor;

namespace {

void logResult(MessageLog& log, const void* buf, int count, MPI_Datatype type) {
  const int bytes = ftb::mpi_bridge::interposition::packedBytes(count, type);
  if (std::byte* room = log.appendCollective(static_cast<std::size_t>(bytes))) {
    ftb::mpi_bridge::interposition::pack(buf, count, type, room, bytes);
  }
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  MessageLog* log = logFor(comm, "MPI_Barrier");
  const int rc = PMPI_Barrier(comm);
  if (log && rc == MPI_SUCCESS) log->appendCollective(0);
  return rc;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  MessageLog* log = logFor(comm, "MPI_Bcast");
  const int rc = PMPI_Bcast(buffer, count, type, root, comm);
  if (log && rc == MPI_SUCCESS) logResult(*log, buffer, count, type);
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MessageLog* log = logFor(comm, "MPI_Allreduce");
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  if (log && rc == MPI_SUCCESS) logResult(*log, recvbuf, count, type);
  return rc;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  MessageLog* log = logFor(comm, "MPI_Allgather");
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (log && rc == MPI_SUCCESS) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    logResult(*log, recvbuf, recvcount * size, recvtype);
  }
  return rc;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  MessageLog* log = logFor(comm, "MPI_Gather");
  const int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (log && rc == MPI_SUCCESS) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank == root) {
      log->appendCollective(0);
    } else {
      logResult(*log, sendbuf, sendcount, sendtype);
    }
  }
  return rc;
}

}  // extern "C"
