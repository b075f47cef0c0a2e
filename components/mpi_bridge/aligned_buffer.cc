#include "components/mpi_bridge/aligned_buffer.h"

#include <new>

namespace ftb::mpi_bridge {

void AlignedBuffer::reserve(std::size_t bytes) {
  if (bytes <= size_) return;
  data_.reset();
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
  size_ = bytes;
}

}  // namespace ftb::mpi_bridge
