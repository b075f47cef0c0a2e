// The calls of logged_mpi.h that local rollback's log does not cover, on
// the logged communicator or one derived from it: each runs as usual, and
// spoils the epoch's log with its name (a failure in that epoch is then
// recovered by global rollback, which says why). Communicators made from the
// logged one are remembered, so that their traffic spoils the epochs it
// happens in. Other MPI calls (on other communicators, files, windows made
// elsewhere) are not interposed at all.
#include "components/mpi_bridge/interposition.h"

using ftb::mpi_bridge::interposition::derived;
using ftb::mpi_bridge::interposition::freed;
using ftb::mpi_bridge::interposition::uncovered;

extern "C" {

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  uncovered(comm, "MPI_Bsend");
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  uncovered(comm, "MPI_Rsend");
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ibsend");
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Irsend");
  return PMPI_Irsend(buf, count, type, dest, tag, comm, request);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Send_init");
  return PMPI_Send_init(buf, count, type, dest, tag, comm, request);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ssend_init");
  return PMPI_Ssend_init(buf, count, type, dest, tag, comm, request);
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Bsend_init");
  return PMPI_Bsend_init(buf, count, type, dest, tag, comm, request);
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Rsend_init");
  return PMPI_Rsend_init(buf, count, type, dest, tag, comm, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Recv_init");
  return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  uncovered(comm, "MPI_Sendrecv_replace");
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  uncovered(comm, "MPI_Mprobe");
  return PMPI_Mprobe(source, tag, comm, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  uncovered(comm, "MPI_Improbe");
  return PMPI_Improbe(source, tag, comm, flag, message, status);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  uncovered(comm, "MPI_Reduce");
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  uncovered(comm, "MPI_Gatherv");
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  uncovered(comm, "MPI_Scatter");
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  uncovered(comm, "MPI_Scatterv");
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  uncovered(comm, "MPI_Allgatherv");
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  uncovered(comm, "MPI_Alltoall");
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  uncovered(comm, "MPI_Alltoallv");
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  uncovered(comm, "MPI_Alltoallw");
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uncovered(comm, "MPI_Reduce_scatter");
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uncovered(comm, "MPI_Reduce_scatter_block");
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uncovered(comm, "MPI_Scan");
  return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  uncovered(comm, "MPI_Exscan");
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ibarrier");
  return PMPI_Ibarrier(comm, request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ibcast");
  return PMPI_Ibcast(buffer, count, type, root, comm, request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Iallreduce");
  return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Iallgather");
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ireduce");
  return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Igather");
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Iscatter");
  return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  uncovered(comm, "MPI_Ialltoall");
  return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  uncovered(comm, "MPI_Win_create");
  return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  uncovered(comm, "MPI_Win_allocate");
  return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Comm_dup");
  return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Comm_dup_with_info");
  return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Comm_split");
  return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Comm_split_type");
  return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Comm_create");
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* newcomm) {
  const int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  if (rc == MPI_SUCCESS) derived(comm, *newcomm, "MPI_Cart_create");
  return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
  freed(*comm);
  return PMPI_Comm_free(comm);
}

}  // extern "C"
