// What every part of the runtime needs to know about the running job: the
// communicator, where each rank runs, the current groups. Built once by
// Runtime::create; read-only afterwards. MPI thread only.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/config.h"
#include "components/mpi_bridge/placement.h"

namespace ftb::mpi_bridge {

struct Job {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 0;
  Config config;
  std::string node;                       // where this rank runs now
  std::vector<std::string> node_of_rank;  // current placement of every rank
  // The machine of every rank (MPI_Get_processor_name), whatever
  // FTBCKPT_NODE_MAP calls its node: where a ULFM replacement is spawned.
  std::vector<std::string> host_of_rank;
  Groups groups;                          // formed from the current placement
  MPI_Comm group_comm = MPI_COMM_NULL;    // my group, ranked by position

  // "/ftbckpt-<job>-<node>-r<rank>-s<slot>": this rank's checkpoint slot on its node.
  std::string shmName(int slot) const;
  // Local rollback's determinant store of this rank (determinant_store.h).
  std::string determinantStoreName() const;
};

Result<Job> makeJob(MPI_Comm comm, Config config);

// The groups of a placement: members of a group sit in distinct failure
// domains (FTBCKPT_DOMAIN_MAP, else nodes), at most FTBCKPT_GROUP_SIZE each.
Groups groupsOfPlacement(const std::vector<std::string>& node_of_rank, const Config& config);

// Every rank's `name`, in rank order. Collective over `comm` (of `size` ranks).
std::vector<std::string> gatherNames(const std::string& name, MPI_Comm comm, int size);

// Group exchanges (parity encoding, rebuilds) move data in chunks of this
// size, small enough that a chunk is still in the core's cache when it is
// encoded or decoded; `kStages` chunks are received at once, and sends run up
// to `kSendsAhead` chunks ahead, so a member that is behind (on a shared core)
// does not hold up the others: they pull its data meanwhile.
inline constexpr std::size_t kPipelineChunk = 256 << 10;
inline constexpr std::size_t kStages = 4;
inline constexpr std::size_t kSendsAhead = 16;

// Waits for every request; returns MPI_SUCCESS or the first failed request's
// error (not MPI_ERR_IN_STATUS). It tests in a loop for a short while, then naps
// between tests: where ranks share cores (oversubscribed jobs, tests with
// several "nodes" on one machine) a rank spinning in MPI takes the core from
// a rank that still copies or encodes, and on dedicated cores the data of a
// pipelined exchange is usually there before the nap begins.
// Every request must start as MPI_REQUEST_NULL before it is posted: a post
// that fails (a revoked communicator, a dead peer) leaves it untouched, and a
// value-initialized MPI_Request is no request to Open MPI (MPI_Testall
// segfaults on it: a replacement's death during a restore did that).
int waitAll(std::vector<MPI_Request>& requests);

// Sends `src_bytes` from `src` to `to` while receiving `dst_bytes` into `dst`
// from `from`, in pipeline chunks (any size); returns the CRC32C of what it
// received, computed chunk by chunk while each is in cache. MPI error code in `rc`.
uint32_t exchangeChunked(const uint8_t* src, std::size_t src_bytes, int to, uint8_t* dst, std::size_t dst_bytes,
                         int from, int tag, MPI_Comm comm, int& rc);

// OK for MPI_SUCCESS, else an error naming `what` and MPI's own text.
Status mpiStatus(int rc, const std::string& what);

// true on every rank iff `ok` is true on every rank of `comm`.
bool allAgree(bool ok, MPI_Comm comm);

}  // namespace ftb::mpi_bridge
