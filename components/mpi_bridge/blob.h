// A rank's protected buffers serialised into one contiguous blob:
//   [u64 count][count x {i64 id, u64 bytes}][buffer data in registration order]
// with the header and every buffer padded to 64-byte boundaries (zeros).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "client/status.h"

namespace ftb::mpi_bridge {

struct Protected {
  int id = 0;
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

std::size_t blobBytes(const std::vector<Protected>& buffers);
// Writes the blob to `out` (blobBytes() long) and returns its CRC32C.
uint32_t writeBlob(const std::vector<Protected>& buffers, uint8_t* out);
// Copies a blob back into the buffers; the ids and sizes must match the registration.
Status readBlob(const uint8_t* blob, std::size_t bytes, const std::vector<Protected>& buffers);

}  // namespace ftb::mpi_bridge
