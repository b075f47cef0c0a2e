#include "components/mpi_bridge/aligned_buffer.h"

#include <sys/mman.h>

#include <new>

#include "components/mpi_bridge/checkpoint_memory.h"

namespace ftb::mpi_bridge {
namespace {
std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
}  // namespace

void AlignedBuffer::Unmap::operator()(uint8_t* p) const { munmap(p, length); }

void AlignedBuffer::reserve(std::size_t bytes) {
  if (bytes <= size_) return;
  data_.reset();
  size_ = 0;
  // 2 MiB or more: whole huge pages, on a huge page boundary (mapped with a
  // huge page to spare, the ends cut off), so that all of it can be huge pages.
  const std::size_t unit = hugePages() && bytes >= kHugePageBytes ? kHugePageBytes : kPageBytes;
  const std::size_t length = roundUp(bytes, unit), spare = unit - kPageBytes;
  void* mapped = mmap(nullptr, length + spare, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  auto* begin = static_cast<uint8_t*>(mapped);
  auto* p = reinterpret_cast<uint8_t*>(roundUp(reinterpret_cast<uintptr_t>(begin), unit));
  if (p > begin) munmap(begin, static_cast<std::size_t>(p - begin));
  if (p + length < begin + length + spare) munmap(p + length, static_cast<std::size_t>(begin + spare - p));
  data_ = std::unique_ptr<uint8_t, Unmap>(p, Unmap{length});
  if (!prefault(p, length)) {
    data_.reset();
    throw std::bad_alloc();
  }
  size_ = bytes;
}

}  // namespace ftb::mpi_bridge
