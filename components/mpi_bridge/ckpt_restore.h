// Finds the newest checkpoint the job can restore and restores it. Collective
// over the job's communicator; MPI thread only.
//
// Each rank opens only its own slot files on the node it runs on now (a rank
// relaunched elsewhere, or on a node whose memory was wiped, finds nothing) and
// reads their headers and metas; only the file of the checkpoint chosen is
// checksummed (a file failing it counts as lost, and the plan is made again).
// A checkpoint is restorable if, in every group of the layout it was written
// with, the missing members can be rebuilt: L2 from the
// successor's partner copy (a migration's L2 copies only the leaving ranks'
// blobs), L3/L4 if no more than m are missing. Otherwise the
// newest checkpoint flushed by every rank (L5) is used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/ckpt_format.h"
#include "components/mpi_bridge/codec.h"
#include "components/mpi_bridge/flusher.h"
#include "components/mpi_bridge/ftbckpt.hpp"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/shm_segment.h"

namespace ftb::mpi_bridge {

struct RestorePlan {
  bool any_data = false;   // some rank found data of this job (valid or not)
  bool available = false;  // a checkpoint can be restored
  bool from_flush = false;
  int64_t ckpt_id = -1;
  int64_t iteration = 0;
  Level level = Level::kL1;
  int rs_m = 0;
  std::vector<int32_t> group_of;
  std::vector<char> present;  // world rank -> its own file of ckpt_id verified
  std::vector<char> holds_copy;  // world rank -> its file holds its predecessor's blob (L2)
};

// A rank's checkpoint file as the scan found it.
struct FoundFile {
  ShmSegment file;
  CkptMeta meta;
  bool verified = false;  // every section's checksum checked
};

class CheckpointRestorer {
 public:
  // `flusher` may be null (no L5 configured).
  CheckpointRestorer(const Job& job, const Flusher* flusher) : job_(job), flusher_(flusher) {}

  // Scans this rank's files and agrees on a plan with every rank.
  RestorePlan plan();
  // Restores `plan` into `buffers`; fails everywhere if it fails anywhere. Then
  // removes this rank's files of later checkpoints, which no longer belong to
  // the job's history.
  Result<RestartReport> restore(const RestorePlan& plan, const std::vector<Protected>& buffers);
  // Restores this rank alone from its own verified file of `plan` (a
  // replacement under local rollback, whose survivors restore nothing): no
  // collective, and nothing removed.
  Result<RestartReport> restoreOwnCopy(const RestorePlan& plan, const std::vector<Protected>& buffers);
  // After a successful restore from memory: this rank's file of the restored
  // checkpoint (none if it had none), handed over: mapped while the caller keeps it.
  std::optional<FoundFile> takeRestoredFile() { return std::exchange(restored_, std::nullopt); }
  // Forgets what an earlier plan() found, for a plan on a new communicator.
  void reset() {
    found_.clear();
    restored_.reset();
    any_file_ = false;
    problems_.clear();
  }
  // Problems the scan found in this rank's files (e.g. a failed checksum).
  const std::vector<std::string>& scanProblems() const { return problems_; }

 private:
  void scan();
  RestorePlan agreeOnPlan();
  // Checksums this rank's file of `ckpt_id` (once); drops it if it fails: true then.
  bool dropIfCorrupt(int64_t ckpt_id);
  bool groupRestorable(const RestorePlan& plan, const std::vector<int>& members) const;
  Result<RestartReport> restoreFromMemory(const RestorePlan& plan, const std::vector<Protected>& buffers);
  Result<RestartReport> restoreFromFlush(const RestorePlan& plan, const std::vector<Protected>& buffers);

  const Job& job_;
  const Flusher* flusher_;
  std::vector<FoundFile> found_;
  std::optional<FoundFile> restored_;
  bool any_file_ = false;
  std::vector<std::string> problems_;
  XorCodec xor_;
  RsCodec rs_;
};

}  // namespace ftb::mpi_bridge
