// Writes one checkpoint of this rank: L1 into its node's shared memory, then
// the level's redundancy through its group (partner copy, XOR or Reed-Solomon
// parity). Collective over the job's communicator. MPI thread only.
//
// Two slots per rank alternate (checkpoint id % 2), so the previous checkpoint
// stays intact until this one is complete everywhere; the caller only moves on
// to the next id after write() succeeded on every rank (write() ends with that
// agreement).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/ckpt_format.h"
#include "components/mpi_bridge/codec.h"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/shm_segment.h"

namespace ftb::mpi_bridge {

struct WriteReport {
  uint64_t bytes = 0;  // this rank's protected bytes
  uint64_t stored = 0;  // bytes this rank stored (own + partner + parity)
  const uint8_t* blob = nullptr;  // the blob in shared memory (valid until the slot is reused)
  uint32_t blob_crc = 0;
};

class CheckpointWriter {
 public:
  explicit CheckpointWriter(const Job& job) : job_(job) {}

  // Fails on every rank if it failed on any (the message says whether locally).
  Result<WriteReport> write(int64_t ckpt_id, int64_t iteration, Level level, const std::vector<Protected>& buffers);

  // The slot file of a complete checkpoint, for the flusher (nullptr if none).
  const ShmSegment* slot(int64_t ckpt_id) const;

  // Unlinks this rank's slot files (end of a job that needs no relaunch).
  void removeAll();

 private:
  Result<WriteReport> writeLocal(int64_t ckpt_id, int64_t iteration, Level level, const std::vector<Protected>& buffers);
  Status encodeParity(CkptMeta& meta, uint8_t* file, int pos, int g);

  const Job& job_;
  std::optional<ShmSegment> slots_[2];
  XorCodec xor_;
  RsCodec rs_;
};

}  // namespace ftb::mpi_bridge
