// A 64-byte aligned byte buffer that only grows and is not zero-filled: the
// codecs take their vector paths on it, and a buffer reused across
// checkpoints keeps its pages faulted in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace ftb::mpi_bridge {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes) { reserve(bytes); }
  // Grows to at least `bytes`; the contents are not kept.
  void reserve(std::size_t bytes);
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace ftb::mpi_bridge
