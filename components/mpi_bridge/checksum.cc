#include "components/mpi_bridge/checksum.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <cstring>

namespace ftb::mpi_bridge {
namespace {
constexpr std::size_t kBlock = 256 * 1024;  // fits L2
}

uint32_t crc32c(const void* data, std::size_t bytes, uint32_t crc) {
  auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0) {
    std::size_t n = std::min<std::size_t>(bytes, 1u << 30);  // crc32_iscsi takes an int length
    crc = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(n), crc);
    p += n;
    bytes -= n;
  }
  return crc;
}

uint32_t copyWithCrc(void* dst, const void* src, std::size_t bytes, uint32_t crc) {
  auto* d = static_cast<unsigned char*>(dst);
  auto* s = static_cast<const unsigned char*>(src);
  for (std::size_t off = 0; off < bytes; off += kBlock) {
    std::size_t n = std::min(kBlock, bytes - off);
    std::memcpy(d + off, s + off, n);
    crc = crc32c(d + off, n, crc);
  }
  return crc;
}

}  // namespace ftb::mpi_bridge
