// CRC32C (ISA-L's crc32_iscsi) over buffers of any size.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ftb::mpi_bridge {

// Continues `crc` (start with 0) over `bytes` bytes.
uint32_t crc32c(const void* data, std::size_t bytes, uint32_t crc = 0);

// memcpy that returns the CRC32C of what it copied: each block is checksummed
// at the source while in cache, then copied with non-temporal stores. The
// source must not change during the copy (the caller's buffers are its own).
uint32_t copyWithCrc(void* dst, const void* src, std::size_t bytes, uint32_t crc = 0);

}  // namespace ftb::mpi_bridge
