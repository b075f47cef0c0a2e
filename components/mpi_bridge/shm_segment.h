// A POSIX shared-memory object (shm_open + mmap) that outlives the process that
// wrote it: the L1 store of one rank. Move-only; unmaps on destruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "client/status.h"

namespace ftb::mpi_bridge {

class ShmSegment {
 public:
  // Creates or resizes `name` ("/ftbckpt-...") to `bytes` and maps it
  // read-write, faulted in (checkpoint_memory.h); the contents are not kept.
  static Result<ShmSegment> create(const std::string& name, std::size_t bytes);
  // Maps an existing object read-only; kNotFound if there is none.
  static Result<ShmSegment> open(const std::string& name);
  // Maps an existing object read-write at its size (another process on the
  // node fills in part of it); kNotFound if there is none.
  static Result<ShmSegment> openForWriting(const std::string& name);
  static void remove(const std::string& name);

  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  static Result<ShmSegment> openExisting(const std::string& name, bool writable);
  ShmSegment(std::string name, uint8_t* data, std::size_t size) : name_(std::move(name)), data_(data), size_(size) {}
  std::string name_;
  uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ftb::mpi_bridge
