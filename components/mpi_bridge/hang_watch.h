// The watchdog of one rank (issue 33, "a watchdog that acts"): a thread that
// wakes every kHangWatchPeriod, asks the ProgressWatch whether the MPI thread's
// next ftbckpt_loop call is overdue, and if so samples that thread's stack and
// announces it once:
//   FTB_MPI_RANK_HUNG    (ERROR)   stalled in its own code (no MPI frame)
//   FTB_MPI_RANK_WAITING (WARNING) stalled inside MPI: waiting for a peer,
//                                  most likely one that is hung
//   FTB_MPI_RANK_RESUMED (INFO)    its loop came back after either
// (docs/RECOVERY_EVENTS.md has the tags). What to do about a hung rank is the
// launcher's decision (ftb-run's `replace` rule); this thread only tells.
// A thread that is runnable but got under a tenth of the stall on a CPU is
// starved by a loaded node, not hung: it is looked at again later.
//
// entered()/left() are called by the MPI thread around every ftbckpt_loop.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>

#include "client/event.h"
#include "components/mpi_bridge/progress_watch.h"

namespace ftb::mpi_bridge {

inline constexpr std::chrono::milliseconds kHangWatchPeriod{100};

class HangWatch {
 public:
  using Publish = std::function<void(std::string_view event_name, const Tags& tags, std::string_view text)>;

  // `identity`: the tags every announcement carries (rank, node, pid, ...).
  HangWatch(StallBound bound, Publish publish, Tags identity);
  ~HangWatch();  // stops and joins the thread
  HangWatch(const HangWatch&) = delete;
  HangWatch& operator=(const HangWatch&) = delete;

  void entered();
  void left(long iteration);

 private:
  void run();
  void announce(const Stall& stall, std::chrono::milliseconds cpu);
  // The MPI thread's CPU time during the stall, and whether it is runnable.
  std::chrono::milliseconds cpuSinceLeft(bool* runnable) const;

  Publish publish_;
  Tags identity_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  ProgressWatch watch_;
  pthread_t mpi_thread_{};
  pid_t mpi_tid_ = 0;
  bool know_mpi_thread_ = false;
  std::chrono::nanoseconds cpu_at_left_{0};  // the MPI thread's CPU time when the loop returned
  std::thread thread_;
};

}  // namespace ftb::mpi_bridge
