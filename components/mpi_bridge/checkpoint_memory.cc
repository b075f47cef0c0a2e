#include "components/mpi_bridge/checkpoint_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>

namespace ftb::mpi_bridge {
namespace {
std::atomic<bool> huge_pages{true};
}  // namespace

void setHugePages(bool on) { huge_pages.store(on, std::memory_order_relaxed); }

bool hugePages() { return huge_pages.load(std::memory_order_relaxed); }

bool prefault(uint8_t* p, std::size_t length) {
  if (hugePages()) madvise(p, length, MADV_HUGEPAGE);  // EINVAL without THP in the kernel: 4 KiB pages
  if (madvise(p, length, MADV_POPULATE_WRITE) == 0) return true;
  if (errno == EFAULT || errno == ENOMEM) return false;
  for (std::size_t i = 0; i < length; i += kPageBytes) p[i] = 0;  // a kernel before 5.14
  return true;
}

void populateKeepingContents(void* p, std::size_t length) {
  const auto begin = (reinterpret_cast<uintptr_t>(p) + kPageBytes - 1) / kPageBytes * kPageBytes;
  const auto end = (reinterpret_cast<uintptr_t>(p) + length) / kPageBytes * kPageBytes;
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

}  // namespace ftb::mpi_bridge
