#include "components/mpi_bridge/checksum.h"

#include <emmintrin.h>
#include <isa-l/crc.h>

#include <algorithm>
#include <cstring>

namespace ftb::mpi_bridge {
namespace {
constexpr std::size_t kBlock = 256 * 1024;  // fits L2

// memcpy with non-temporal stores where the destination is 16-byte aligned:
// a large checkpoint copy then costs one read and one write per byte instead
// of also reading every destination line into the cache first.
void streamCopy(unsigned char* d, const unsigned char* s, std::size_t n) {
  if (reinterpret_cast<uintptr_t>(d) % 16 != 0 || n < 4096) {
    std::memcpy(d, s, n);
    return;
  }
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, n - i);
}

}  // namespace

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
    // The source block is checksummed first, which brings it into cache, then
    // streamed out: the copy is not read again soon, so it skips the cache.
    crc = crc32c(s + off, n, crc);
    streamCopy(d + off, s + off, n);
  }
  _mm_sfence();  // the streamed stores are visible before the caller goes on
  return crc;
}

}  // namespace ftb::mpi_bridge
