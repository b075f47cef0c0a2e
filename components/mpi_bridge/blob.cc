#include "components/mpi_bridge/blob.h"

#include <cstring>

#include "components/mpi_bridge/checksum.h"

namespace ftb::mpi_bridge {
namespace {

// Buffers start 64-byte aligned in the blob (and the blob in its section):
// copying into a misaligned destination ran at a third of the speed here.
constexpr std::size_t kAlign = 64;
std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
std::size_t headerBytes(std::size_t count) { return aligned(8 + 16 * count); }

}  // namespace

std::size_t blobBytes(const std::vector<Protected>& buffers) {
  std::size_t n = headerBytes(buffers.size());
  for (const auto& b : buffers) n = aligned(n) + b.bytes;
  return n;
}

uint32_t writeBlob(const std::vector<Protected>& buffers, uint8_t* out) {
  std::vector<uint64_t> header;
  header.push_back(buffers.size());
  for (const auto& b : buffers) {
    header.push_back(static_cast<uint64_t>(static_cast<int64_t>(b.id)));
    header.push_back(b.bytes);
  }
  header.resize(headerBytes(buffers.size()) / 8, 0);
  uint32_t crc = copyWithCrc(out, header.data(), header.size() * 8);
  std::size_t off = header.size() * 8;
  for (const auto& b : buffers) {
    if (std::size_t pad = aligned(off) - off; pad > 0) {
      std::memset(out + off, 0, pad);
      crc = crc32c(out + off, pad, crc);
      off += pad;
    }
    crc = copyWithCrc(out + off, b.ptr, b.bytes, crc);
    off += b.bytes;
  }
  return crc;
}

Status readBlob(const uint8_t* blob, std::size_t bytes, const std::vector<Protected>& buffers) {
  uint64_t count = 0;
  if (bytes < 8) return invalidArgument("checkpoint blob is truncated");
  std::memcpy(&count, blob, 8);
  if (count != buffers.size() || bytes != blobBytes(buffers)) {
    return invalidArgument("checkpoint holds " + std::to_string(count) + " buffers in " + std::to_string(bytes) +
                           " bytes but " + std::to_string(buffers.size()) + " buffers of " +
                           std::to_string(blobBytes(buffers)) + " bytes are protected now");
  }
  std::size_t off = headerBytes(count);
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    int64_t id;
    uint64_t n;
    std::memcpy(&id, blob + 8 + 16 * i, 8);
    std::memcpy(&n, blob + 16 + 16 * i, 8);
    if (id != buffers[i].id || n != buffers[i].bytes) {
      return invalidArgument("checkpoint buffer " + std::to_string(i) + " is id " + std::to_string(id) + " of " +
                             std::to_string(n) + " bytes; protected now: id " + std::to_string(buffers[i].id) +
                             " of " + std::to_string(buffers[i].bytes) + " bytes");
    }
  }
  for (const auto& b : buffers) {
    off = aligned(off);
    std::memcpy(b.ptr, blob + off, b.bytes);
    off += b.bytes;
  }
  return {};
}

}  // namespace ftb::mpi_bridge
