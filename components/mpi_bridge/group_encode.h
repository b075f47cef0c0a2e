// The group part of a checkpoint: after a rank wrote its blob (L1) into its
// slot file, its group adds the level's redundancy (a partner copy, XOR or
// Reed-Solomon parity) and the file gets its meta and its complete mark.
//
// Whoever runs it takes one member's place in the group's communicator: the
// rank itself, its FTBCKPT_ASYNC thread, or its node's dedicated encoder
// (node_encoder.h). Not thread-safe: one GroupEncoder per thread that encodes.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "client/status.h"
#include "components/mpi_bridge/aligned_buffer.h"
#include "components/mpi_bridge/ckpt_format.h"
#include "components/mpi_bridge/codec.h"

namespace ftb::mpi_bridge {

struct WriteReport {
  bool pending = false;  // the group part still runs elsewhere (CheckpointWriter::finishPending())
  uint64_t bytes = 0;  // this rank's protected bytes
  uint64_t stored = 0;  // bytes this rank stored (own + partner + parity)
  const uint8_t* blob = nullptr;  // the blob in shared memory (valid until the slot is reused)
  uint32_t blob_crc = 0;
};

// A checkpoint between its local part (L1 written) and its group part.
struct PendingWrite {
  CkptMeta meta;  // sections laid out; partner and parity checksums still 0
  uint8_t* file = nullptr;  // the member's slot file, mapped
  int pos = 0;  // the member's position in its group
  int g = 0;    // group size
  int pred_rank = 0;  // the predecessor's rank (for messages)
  bool partner_out = false;  // L2: my blob goes to my successor
  bool partner_in = false;   // L2: my predecessor's blob comes to me
  GroupCode code;
  std::size_t meta_size = 0;  // bytes reserved for the meta
  std::size_t total = 0;      // the file's size
  WriteReport report;
};

class GroupEncoder {
 public:
  // Collective over `group_comm`, whose ranks are the group positions: the
  // partner copy or the parity, then the meta, then the complete mark.
  Status complete(PendingWrite& p, MPI_Comm group_comm);

 private:
  Status encodeParity(CkptMeta& meta, uint8_t* file, int pos, int g, MPI_Comm comm);

  XorCodec xor_;
  RsCodec rs_;
  AlignedBuffer recv_;  // the parity exchange's pipeline stages
};

}  // namespace ftb::mpi_bridge
