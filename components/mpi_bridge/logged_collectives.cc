// The collectives of logged_mpi.h, logged at the application's level by
// what a replacement replaying the epoch needs instead of running them again:
// the result this rank got (the same on every rank for a barrier, broadcast,
// allreduce or allgather), or for a gather, whose result only the root gets,
// this rank's contribution (a replacement of the root gathers the survivors'
// from their logs). Never the messages of the algorithm that computed it.
#include <cstdio>

#include "components/mpi_bridge/collective_expression.h"
#include "components/mpi_bridge/interposition.h"

using ftb::mpi_bridge::CollectiveShape;
using ftb::mpi_bridge::MessageLog;
using ftb::mpi_bridge::interposition::logFor;
using ftb::mpi_bridge::interposition::logForThisThread;
using ftb::mpi_bridge::interposition::recoveredLocally;
using ftb::mpi_bridge::interposition::replayedCollective;

namespace {

// Where a collective's result goes (none: a barrier, or a gather's contribution).
struct Result {
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
};

// What the log keeps of a collective: `result` (its buffer: none for a
// barrier or a gather's root), and the collective's shape, to count what
// logging its algorithm's messages would have kept instead.
struct Logged {
  Result result;
  CollectiveShape shape = CollectiveShape::kBarrier;
  int root = 0;
};

std::size_t pointToPointExpression(const Logged& logged, std::size_t bytes) {
  int rank = 0, size = 1;
  const MPI_Comm comm = ftb::mpi_bridge::interposition::logging().comm.load();
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  return ftb::mpi_bridge::pointToPointBytes(logged.shape, rank, size, logged.root, bytes);
}

// What goes into the log once the collective completed.
void logCompleted(const Logged& logged) {
  MessageLog* log = logForThisThread();
  if (!log) return;
  const Result& r = logged.result;
  const int bytes = r.buf ? ftb::mpi_bridge::interposition::packedBytes(r.count, r.type) : 0;
  const auto size = static_cast<std::size_t>(bytes);
  const std::size_t expression = pointToPointExpression(logged, size);
  // A gather's contribution (a non-root's) is every rank's own to keep.
  std::byte* room = logged.shape == CollectiveShape::kGather && r.buf
                        ? log->appendGatherContribution(logged.root, size, expression)
                        : log->appendCollective(size, expression);
  if (room && bytes > 0) ftb::mpi_bridge::interposition::pack(r.buf, r.count, r.type, room, bytes);
}

// A replayed collective: the handed-over result, unpacked as it was logged,
// and logged again (this rank's log holds every collective of its epoch).
int replay(std::span<const std::byte> handed, const Result& into, const Logged& logged, const char* call) {
  if (into.buf && !ftb::mpi_bridge::interposition::unpack(handed, into.buf, into.count, into.type)) {
    std::fprintf(stderr, "ftbckpt: %s replayed after a local recovery: the handed-over result (%zu bytes) does not "
                 "fit this call's\n", call, handed.size());
    return MPI_ERR_TRUNCATE;
  }
  logCompleted(logged);
  return MPI_SUCCESS;
}

// Runs `run` on the logged communicator, or returns the result of a replayed
// one; a process failure inside it is repaired there, and after a local
// recovery the result is handed over (a survivor completed it) or the
// collective runs again on the repaired communicator. `logged` is what goes
// into the log on success.
template <typename Run>
int loggedCollective(const char* call, MPI_Comm comm, const Result& into, const Logged& logged, Run run) {
  if (auto handed = replayedCollective()) return replay(*handed, into, logged, call);
  for (;;) {
    const int rc = run(comm);
    if (rc == MPI_SUCCESS) {
      logCompleted(logged);
      return rc;
    }
    if (!recoveredLocally(rc, call)) return rc;
    if (auto handed = replayedCollective()) return replay(*handed, into, logged, call);
    comm = ftb::mpi_bridge::interposition::logging().comm.load();
  }
}

// A replacement replays a gather it is the root of, which its survivors
// completed: their contributions were handed over (LoggedMpi::carryOut), its
// own is in `sendbuf`.
int replayGatherAtRoot(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, int size) {
  (void)replayedCollective();  // the keepers' entry for it (empty), taken in its turn
  const auto gathered = ftb::mpi_bridge::interposition::replayedGather();
  MPI_Aint lower = 0, extent = 0;
  PMPI_Type_get_extent(recvtype, &lower, &extent);
  auto slot = [&](int r) { return static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(r) * recvcount * extent; };
  for (int r = 0; r < size; ++r) {
    if (r == root) continue;
    const bool have = r < static_cast<int>(gathered.size()) && gathered[static_cast<std::size_t>(r)];
    if (!have || !ftb::mpi_bridge::interposition::unpack(*gathered[static_cast<std::size_t>(r)], slot(r), recvcount,
                                                          recvtype)) {
      ftb::mpi_bridge::interposition::cannotReplay("MPI_Gather at its root (a survivor's contribution is missing)");
    }
  }
  if (sendbuf != MPI_IN_PLACE) {
    PMPI_Sendrecv(sendbuf, sendcount, sendtype, 0, 0, slot(root), recvcount, recvtype, 0, 0, MPI_COMM_SELF,
                  MPI_STATUS_IGNORE);
  }
  logCompleted({Result{}, CollectiveShape::kGather, root});
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  if (!logFor(comm, "MPI_Barrier")) return PMPI_Barrier(comm);
  return loggedCollective("MPI_Barrier", comm, {}, {{}, CollectiveShape::kBarrier},
                          [](MPI_Comm c) { return PMPI_Barrier(c); });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!logFor(comm, "MPI_Bcast")) return PMPI_Bcast(buffer, count, type, root, comm);
  const Result result{buffer, count, type};
  return loggedCollective("MPI_Bcast", comm, result, {result, CollectiveShape::kBcast, root},
                          [&](MPI_Comm c) { return PMPI_Bcast(buffer, count, type, root, c); });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!logFor(comm, "MPI_Allreduce")) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  const Result result{recvbuf, count, type};
  return loggedCollective("MPI_Allreduce", comm, result, {result, CollectiveShape::kAllreduce},
                          [&](MPI_Comm c) { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, c); });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!logFor(comm, "MPI_Allgather")) {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  int size = 0;
  PMPI_Comm_size(comm, &size);
  const Result result{recvbuf, recvcount * size, recvtype};
  return loggedCollective("MPI_Allgather", comm, result, {result, CollectiveShape::kAllgather}, [&](MPI_Comm c) {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
  });
}

// Logged by contribution, by every rank but the root (each one's is its own):
// a non-root's replay needs nothing (it gets no result); a lost root's
// replacement gathers the survivors' contributions from their logs.
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!logFor(comm, "MPI_Gather")) {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (rank == root && ftb::mpi_bridge::interposition::collectiveDue()) {
    return replayGatherAtRoot(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, size);
  }
  const Result contribution{const_cast<void*>(sendbuf), sendcount, sendtype};
  const Logged logged{rank == root ? Result{} : contribution, CollectiveShape::kGather, root};
  return loggedCollective("MPI_Gather", comm, {}, logged, [&](MPI_Comm c) {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
  });
}

}  // extern "C"
