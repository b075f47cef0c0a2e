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
// only by the members of groups with a lost member. MPI thread only.
#pragma once

#include <mpi.h>

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

class GroupReprotector {
 public:
  // `own`: this member's file of the restored checkpoint, null if it was lost
  // (then `buffers` hold its restored data). Fails on every member of the
  // group if it failed on any; a lost member's new file is then removed.
  Result<WriteReport> rewrite(const Job& job, const RestorePlan& plan, const FoundFile* own,
                              const std::vector<Protected>& buffers);

 private:
  // The group's exchange; `new_file` (a lost member's) gets its copy or
  // parity sections, their checksums into `meta`.
  Status exchange(const Job& job, CkptMeta& meta, const std::vector<bool>& lost, const uint8_t* own_data,
                  uint8_t* new_file);

  XorCodec xor_;
  RsCodec rs_;
  AlignedBuffer recv_;
};

}  // namespace ftb::mpi_bridge
