// How ftbckpt faults in checkpoint-sized memory (AlignedBuffer's anonymous
// buffers, ShmSegment's L1 slots): all at once when it is allocated, and in
// huge pages where the kernel offers them, not one 4 KiB page at a time
// wherever it is first written. On a shadow-paging VM a 4 KiB fault costs
// 10-30 us, 64 MiB 0.2-0.5 s; in huge pages 64 MiB costs 5-25 ms.
//
// The kernel offers huge pages to a mapping advised with MADV_HUGEPAGE:
// anonymous memory where transparent huge pages are "madvise" or "always"
// (/sys/kernel/mm/transparent_hugepage/enabled), /dev/shm where it is mounted
// with huge=advise, within_size or always. Elsewhere the pages stay 4 KiB,
// still faulted in at allocation, in one call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ftb::mpi_bridge {

inline constexpr std::size_t kPageBytes = 4096;
inline constexpr std::size_t kHugePageBytes = 2 << 20;

// Config::huge_pages (FTBCKPT_HUGE_PAGES), set by Runtime::create before it
// allocates checkpoint memory; on until then. Process-wide, any thread.
void setHugePages(bool on);
bool hugePages();

// Advises [p, p + length) to huge pages (when hugePages()) and makes every page
// of it present and writable. `p` starts a page of a writable mapping, a huge
// page where huge pages are wanted (AlignedBuffer aligns its mappings; the
// kernel aligns a huge tmpfs's). The contents are not kept: where the kernel
// cannot populate (MADV_POPULATE_WRITE, Linux 5.14) the first byte of every
// page is written with 0. False when there is no memory to back the pages (a
// full /dev/shm; the first write would raise SIGBUS).
bool prefault(uint8_t* p, std::size_t length);

// Makes the whole pages of [p, p + length) present and writable, keeping their
// contents: the application's buffers a restore is about to fill (a replacement
// that has not touched them yet would otherwise take one fault per 4 KiB page
// during the copy). Advice only: where the kernel cannot populate, nothing happens.
void populateKeepingContents(void* p, std::size_t length);

}  // namespace ftb::mpi_bridge
