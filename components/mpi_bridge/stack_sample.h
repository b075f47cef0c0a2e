// Where is a thread right now? A snapshot of its call stack, taken by that
// thread itself in a signal handler and named by the caller with dladdr, for
// the hang watch's announcement (hang_watch.h): a rank stalled in its own code
// is hung; one stalled inside the MPI library waits for a peer.
//
// The signal is kStackSampleSignal (SIGRTMAX - 3). install() takes it only if
// the application left it at its default; otherwise sampling is unavailable
// and announcements say so. One sample at a time (the hang watch thread).
#pragma once

#include <pthread.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftb::mpi_bridge {

struct StackSample {
  std::vector<std::string> frames;  // innermost first: "<object>:<function>" or "<object>+0x<offset>"
  bool in_mpi = false;              // some frame lies in an MPI library (is_mpi_library)
};

// True once the handler is ours (idempotent); false if the signal is taken.
bool installStackSampler();

// The stack of `thread` (a thread of this process), or nothing if it did not
// answer within `wait` (signal blocked, or no handler).
std::optional<StackSample> sampleStack(pthread_t thread, std::chrono::milliseconds wait);

// Open MPI's and its transports' libraries, by file name: libmpi*, libopen-pal*,
// libopen-rte*, libprrte*, libpmix*, libuc[pst]*, libfabric*, libpsm*, mca_*.
bool isMpiLibrary(std::string_view object_path);

// "a;b;c" of at most `max_frames` frames, for an event tag.
std::string joinFrames(const StackSample& sample, std::size_t max_frames);

}  // namespace ftb::mpi_bridge
