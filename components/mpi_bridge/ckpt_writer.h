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
#include <future>
#include <optional>
#include <vector>

#include "components/mpi_bridge/aligned_buffer.h"
#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/ckpt_format.h"
#include "components/mpi_bridge/codec.h"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/shm_segment.h"

namespace ftb::mpi_bridge {

struct WriteReport {
  bool pending = false;  // asynchronous: the group part still runs (finishPending())
  uint64_t bytes = 0;  // this rank's protected bytes
  uint64_t stored = 0;  // bytes this rank stored (own + partner + parity)
  const uint8_t* blob = nullptr;  // the blob in shared memory (valid until the slot is reused)
  uint32_t blob_crc = 0;
};

// A checkpoint between its local part (L1 written) and its group part.
struct PendingWrite {
  CkptMeta meta;
  uint8_t* file = nullptr;
  int pos = 0;
  int g = 0;
  bool partner_out = false;  // L2: my blob goes to my successor
  bool partner_in = false;   // L2: my predecessor's blob comes to me
  GroupCode code;
  std::size_t meta_size = 0;
  std::size_t total = 0;
  WriteReport report;
};

class CheckpointWriter {
 public:
  explicit CheckpointWriter(const Job& job) : job_(job) {}
  ~CheckpointWriter() { (void)finishPending(); }

  // From now on the group part of L2-L4 checkpoints runs on a background
  // thread (needs MPI_THREAD_MULTIPLE): write() returns once L1 is written.
  void enableAsync();
  // Waits for an asynchronous checkpoint; its error if it failed anywhere
  // (then its id must be written again: its slot holds no complete checkpoint).
  Status finishPending();
  bool hasPending() const { return pending_result_.valid(); }
  int64_t pendingId() const { return pending_id_; }

  // Fails on every rank if it failed on any (the message says whether locally).
  // `leaving_node` (L2 before a migration): only the blobs of ranks on that
  // node get partner copies; everyone else restarts where its L1 copy is.
  Result<WriteReport> write(int64_t ckpt_id, int64_t iteration, Level level, const std::vector<Protected>& buffers,
                            const std::string& leaving_node = "");

  // The slot file of a complete checkpoint, for the flusher (nullptr if none).
  const ShmSegment* slot(int64_t ckpt_id) const;

  // Lets go of the slot files (after a restore that unlinked some): the next
  // checkpoint of each slot creates its file again.
  void forgetSlots() { slots_[0].reset(); slots_[1].reset(); }

  // Unlinks this rank's slot files (end of a job that needs no relaunch).
  void removeAll();

 private:
  // Phase 1 on the job's communicators: layout, file, L1, checksums.
  Result<PendingWrite> prepare(int64_t ckpt_id, int64_t iteration, Level level, const std::vector<Protected>& buffers,
                               const std::string& leaving_node);
  // Phase 2 on `comm` (the group): partner copy or parity, meta, complete mark.
  Status complete(PendingWrite& p, MPI_Comm comm);
  Status encodeParity(CkptMeta& meta, uint8_t* file, int pos, int g, MPI_Comm comm);

  const Job& job_;
  std::optional<ShmSegment> slots_[2];
  XorCodec xor_;
  RsCodec rs_;
  AlignedBuffer recv_;  // the parity exchange's pipeline stages
  MPI_Comm async_comm_ = MPI_COMM_NULL;
  MPI_Comm async_group_comm_ = MPI_COMM_NULL;
  std::future<Status> pending_result_;
  int64_t pending_id_ = -1;
};

}  // namespace ftb::mpi_bridge
