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
#include <functional>
#include <future>
#include <optional>
#include <vector>

#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/group_encode.h"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/node_encoder.h"
#include "components/mpi_bridge/shm_segment.h"

namespace ftb::mpi_bridge {

class CheckpointWriter {
 public:
  explicit CheckpointWriter(const Job& job) : job_(job) {}
  ~CheckpointWriter() { (void)finishPending(); }

  // From now on the group part of L2-L4 checkpoints runs on a background
  // thread (needs MPI_THREAD_MULTIPLE): write() returns once L1 is written.
  // Collective over the job's communicator (it duplicates it and the
  // group's); called again after a run-through recovery replaced them.
  void enableAsync();
  // From now on the group part of L2-L4 checkpoints is handed to the node's
  // dedicated encoder (FTBCKPT_ENCODER=node): write() returns once L1 is written.
  void enableNodeEncoder(MPI_Comm node_comm) { node_encoder_.emplace(node_comm); }
  bool asyncEnabled() const { return async_comm_ != MPI_COMM_NULL; }
  // Runs `group_part` on the background thread over the duplicate of the
  // group's communicator, as the group part of checkpoint `ckpt_id` (write()'s
  // asynchronous one, or a re-protection's: group_reprotect.h);
  // finishPending() collects it. After enableAsync(), with nothing pending.
  void startInBackground(int64_t ckpt_id, std::function<Status(MPI_Comm group_comm)> group_part);
  // Waits for an asynchronous checkpoint; its error if it failed anywhere
  // (then its id must be written again: its slot holds no complete checkpoint).
  Status finishPending();
  bool hasPending() const { return pending_result_.valid() || (node_encoder_ && node_encoder_->busy()); }
  // Whether a pending group part is still running (not merely uncollected). Never blocks.
  bool backgroundBusy();
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

  // The application's end: the node's encoder, if any, is told (collective
  // with the node's other ranks). After finishPending().
  void finish() {
    if (node_encoder_) node_encoder_->finish();
  }

 private:
  // Phase 1 on the job's communicators: layout, file, L1, checksums.
  Result<PendingWrite> prepare(int64_t ckpt_id, int64_t iteration, Level level, const std::vector<Protected>& buffers,
                               const std::string& leaving_node);

  const Job& job_;
  std::optional<ShmSegment> slots_[2];
  GroupEncoder encoder_;  // the group part when this rank (or its async thread) runs it
  std::optional<NodeEncoderLink> node_encoder_;
  MPI_Comm async_comm_ = MPI_COMM_NULL;
  MPI_Comm async_group_comm_ = MPI_COMM_NULL;
  std::future<Status> pending_result_;
  int64_t pending_id_ = -1;
};

}  // namespace ftb::mpi_bridge
