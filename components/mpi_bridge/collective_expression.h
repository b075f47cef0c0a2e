// What a collective would cost the message log if it were logged as the
// point-to-point messages of its algorithm (issue 34's comparison): the bytes
// one rank sends in the textbook algorithm, which sender-based logging would
// keep at that rank. Local rollback logs the collective's result instead
// (logged_collectives.cc); the runtime prints both totals at the end of a run.
// The algorithms: binomial-tree broadcast, recursive-doubling allreduce (with
// the pre- and post-step for a size that is no power of two), ring allgather,
// linear gather, dissemination barrier (messages without payload). Open MPI
// picks among several by size; these are the ones that send least.
#pragma once

#include <cstddef>

namespace ftb::mpi_bridge {

enum class CollectiveShape { kBarrier, kBcast, kAllreduce, kAllgather, kGather };

// `bytes`: the result (broadcast, allreduce: every rank's; allgather: the
// whole gathered buffer) or, for a gather, this rank's contribution.
std::size_t pointToPointBytes(CollectiveShape shape, int rank, int size, int root, std::size_t bytes);

}  // namespace ftb::mpi_bridge
