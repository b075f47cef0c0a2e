// Rebuilds the blobs of a group's lost members from the other members' data
// segments and parity symbols (L3 XOR, L4 Reed-Solomon; layout in
// ckpt_writer.cc). Collective over the group's communicator, ranked by group
// position. Pipelined in chunks like the encoding. The decoding is shared:
// each of a lost member's k segments is decoded by a different survivor (one
// that holds a source symbol), which gathers the other k-1 sources and sends
// the lost member only its decoded bytes, so restore time stays flat as
// groups grow instead of rising with k.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "client/status.h"
#include "components/mpi_bridge/aligned_buffer.h"
#include "components/mpi_bridge/ckpt_format.h"
#include "components/mpi_bridge/codec.h"

namespace ftb::mpi_bridge {

// What a lost member gets back: its blob (zero-padded to the symbol area) and
// the size and checksum its group recorded for it, to verify against.
struct RebuiltBlob {
  AlignedBuffer data;
  uint64_t bytes = 0;
  uint32_t crc = 0;
  std::optional<uint32_t> received_crc;  // taken while the bytes arrived, where the transfer did
};

// `file` and `meta`: this member's checkpoint, or null if it is lost.
// `present`: per group position, whether that member has its file.
// Returns the blob if this member is lost, nothing if it survived.
Result<std::optional<RebuiltBlob>> rebuildLostMembers(const uint8_t* file, const CkptMeta* meta,
                                                      const std::vector<bool>& present, GroupCode code,
                                                      ErasureCodec& codec, MPI_Comm comm);

}  // namespace ftb::mpi_bridge
