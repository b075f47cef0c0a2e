// A 64-byte aligned byte buffer that only grows and is not zero-filled: the
// codecs take their vector paths on it, and a buffer reused across
// checkpoints keeps its pages faulted in.
//
// ftbckpt's one way to allocate checkpoint-sized anonymous memory (the parity
// exchange's stages, a rebuilt or received blob): a mapping of its own, faulted
// in when it is allocated, in huge pages where the kernel offers them
// (checkpoint_memory.h); a buffer of 2 MiB or more is aligned to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ftb::mpi_bridge {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t bytes) { reserve(bytes); }
  // Grows to at least `bytes`; the contents are not kept. Throws std::bad_alloc.
  void reserve(std::size_t bytes);
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }

 private:
  struct Unmap {
    std::size_t length;  // of the mapping
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Unmap> data_;
  std::size_t size_ = 0;
};

}  // namespace ftb::mpi_bridge
