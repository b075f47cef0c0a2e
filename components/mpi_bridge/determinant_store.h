// The determinants of one rank's epoch (message_log.h) in node shared
// memory, so that they outlive the process: a replacement spawned on the
// same node replays the wildcard matches and completions its predecessor saw.
// Pessimistic: append() returns once the record is in memory the kernel
// keeps after the process dies, before the MPI call that produced it returns,
// so nothing the rank sends can depend on an outcome that is not stored. A
// replacement on another node finds nothing (the node's memory went with it);
// local rollback then falls back to global rollback for an epoch that had
// any determinant.
//
// Layout: a header {magic, line, count} of 64-bit words, then records
// {kind, peer, tag, n, n indices} of 32-bit words. `count` is written after
// its record, so a process killed inside append() leaves the records before it.
// Not thread-safe: the MPI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/message_log.h"
#include "components/mpi_bridge/shm_segment.h"

namespace ftb::mpi_bridge {

struct StoredDeterminants {
  std::int64_t line = -1;  // the checkpoint line the epoch started at
  std::vector<Determinant> determinants;
};

class DeterminantStore {
 public:
  // `name` as ShmSegment's ("/ftbckpt-<job>-<node>-r<rank>-det"); an empty
  // epoch after the job's start (line -1).
  static Result<DeterminantStore> create(const std::string& name, std::size_t bytes);
  // What a (dead) process left under `name`: kNotFound if nothing,
  // kInvalidArgument if it is not a store.
  static Result<StoredDeterminants> read(const std::string& name);

  void startEpoch(std::int64_t line);
  // False when it does not fit: the epoch cannot be replayed.
  bool append(const Determinant& determinant);

  const std::string& name() const { return segment_.name(); }
  std::size_t bytes() const { return segment_.size(); }

 private:
  explicit DeterminantStore(ShmSegment segment) : segment_(std::move(segment)) {}
  ShmSegment segment_;
  std::size_t used_ = 0;  // bytes of records after the header
};

}  // namespace ftb::mpi_bridge
