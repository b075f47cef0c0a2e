#include "components/mpi_bridge/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "components/mpi_bridge/checkpoint_memory.h"

namespace ftb::mpi_bridge {
namespace {
std::string errnoText(const std::string& what, const std::string& name) {
  return what + " " + name + ": " + std::strerror(errno);
}
}  // namespace

Result<ShmSegment> ShmSegment::create(const std::string& name, std::size_t bytes) {
  int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) return internalError(errnoText("shm_open", name));
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::string message = errnoText("ftruncate (is /dev/shm full?)", name);
    close(fd);
    return resourceExhausted(message);
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return internalError(errnoText("mmap", name));
  ShmSegment segment(name, static_cast<uint8_t*>(p), bytes);
  // Present now, not faulted in one 4 KiB page at a time (a 64 MiB slot is 16k
  // faults) during the checkpoint; huge pages where /dev/shm is mounted huge=.
  if (!prefault(segment.data_, bytes)) {
    return resourceExhausted("no memory for the " + std::to_string(bytes) + " bytes of " + name +
                             " (is /dev/shm full?)");
  }
  return segment;
}

Result<ShmSegment> ShmSegment::open(const std::string& name) { return openExisting(name, false); }

Result<ShmSegment> ShmSegment::openForWriting(const std::string& name) { return openExisting(name, true); }

Result<ShmSegment> ShmSegment::openExisting(const std::string& name, bool writable) {
  int fd = shm_open(name.c_str(), writable ? O_RDWR : O_RDONLY, 0);
  if (fd < 0) {
    if (errno == ENOENT) return notFound(name);
    return internalError(errnoText("shm_open", name));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    close(fd);
    return notFound(name + " is empty");
  }
  const int protection = writable ? PROT_READ | PROT_WRITE : PROT_READ;
  void* p = mmap(nullptr, st.st_size, protection, MAP_SHARED | MAP_POPULATE, fd, 0);  // read whole anyway
  close(fd);
  if (p == MAP_FAILED) return internalError(errnoText("mmap", name));
  return ShmSegment(name, static_cast<uint8_t*>(p), static_cast<std::size_t>(st.st_size));
}

void ShmSegment::remove(const std::string& name) { shm_unlink(name.c_str()); }

ShmSegment::ShmSegment(ShmSegment&& other) noexcept
    : name_(std::move(other.name_)), data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, size_);
    name_ = std::move(other.name_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

ShmSegment::~ShmSegment() {
  if (data_) munmap(data_, size_);
}

}  // namespace ftb::mpi_bridge
