// Makes a checkpoint restored from memory whole again where its group lost
// members, at the checkpoint's own id, level and layout. A member restored
// without its own file (rebuilt from its successor's partner copy or from its
// group's parity) writes that file again: its blob, its predecessor's blob
// (L2) or the parity symbols it holds (L3/L4), computed from the data
// segments its group's other members send out of their files. Those files
// are only read, so a failure part-way leaves the checkpoint as the restore
// found it; groups that lost nobody take no part, and nothing that survived
// is written again.
//
// Collective over the group's communicator (ranked by group position), called
// only by the members of groups with a lost member. In two parts: begin() on
// the MPI thread (sizes and checksums agreed, a lost member's file begun with
// its blob from the application's buffers), then finish() (the exchange and
// the seal, reading only files), which may run on the asynchronous
// checkpoint's thread over its duplicate of the group's communicator.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/aligned_buffer.h"
#include "components/mpi_bridge/blob.h"
#include "components/mpi_bridge/ckpt_restore.h"
#include "components/mpi_bridge/codec.h"
#include "components/mpi_bridge/group_encode.h"
#include "components/mpi_bridge/job.h"

namespace ftb::mpi_bridge {

// Whether `plan`'s checkpoint can be made whole in place for this job: it
// came from memory and the job's groups are the ones it was written with.
bool reprotectableInPlace(const RestorePlan& plan, const Job& job);

// Whether any member of this rank's group (in `plan`'s layout) lost its file.
bool groupLostMembers(const RestorePlan& plan, const Job& job);

// A rewrite between its two parts.
struct PendingRewrite {
  CkptMeta meta;                   // the group's, as the restored checkpoint has it
  std::vector<bool> lost;          // by group position
  std::optional<FoundFile> own;    // a survivor's file, mapped until finish()
  std::optional<ShmSegment> file;  // a lost member's new file, its blob in
  FileLayout layout;               // of `file`
  uint64_t bytes = 0;              // this member's blob
};

class GroupReprotector {
 public:
  // `own`: this member's file of the restored checkpoint, none if it was lost
  // (then `buffers` hold its restored data). Fails on every member of the
  // group if it failed on any; a lost member's new file is then removed.
  Result<PendingRewrite> begin(const Job& job, const RestorePlan& plan, std::optional<FoundFile> own,
                               const std::vector<Protected>& buffers);
  // Collective over `group_comm` (job.group_comm or a duplicate of it); same
  // failure rule. `job` must stay as begin() saw it.
  Result<WriteReport> finish(const Job& job, PendingRewrite& pending, MPI_Comm group_comm);

 private:
  // The group's exchange; `new_file` (a lost member's) gets its copy or
  // parity sections, their checksums into `meta`.
  Status exchange(const Job& job, MPI_Comm comm, CkptMeta& meta, const std::vector<bool>& lost,
                  const uint8_t* own_data, uint8_t* new_file);

  XorCodec xor_;
  RsCodec rs_;
  AlignedBuffer recv_;
};

}  // namespace ftb::mpi_bridge
