#include "components/mpi_bridge/hang_watch.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "components/mpi_bridge/stack_sample.h"

namespace ftb::mpi_bridge {
namespace {

// Long enough for a busy thread on a loaded node to be scheduled and run the handler.
constexpr std::chrono::milliseconds kSampleWait{1000};
constexpr std::size_t kFramesTold = 16;

std::string msText(std::chrono::milliseconds ms) { return std::to_string(ms.count()); }

}  // namespace

HangWatch::HangWatch(StallBound bound, Publish publish, Tags identity)
    : publish_(std::move(publish)), identity_(std::move(identity)), watch_(bound) {
  (void)installStackSampler();
  thread_ = std::thread([this] { run(); });
}

HangWatch::~HangWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void HangWatch::entered() {
  std::lock_guard<std::mutex> lock(mu_);
  watch_.entered(ProgressWatch::Clock::now());
}

void HangWatch::left(long iteration) {
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  std::lock_guard<std::mutex> lock(mu_);
  if (!know_mpi_thread_) {
    mpi_thread_ = pthread_self();
    mpi_tid_ = static_cast<pid_t>(syscall(SYS_gettid));
    know_mpi_thread_ = true;
  }
  cpu_at_left_ = std::chrono::seconds(cpu.tv_sec) + std::chrono::nanoseconds(cpu.tv_nsec);
  watch_.left(ProgressWatch::Clock::now(), iteration);
}

std::chrono::milliseconds HangWatch::cpuSinceLeft(bool* runnable) const {
  *runnable = false;
  clockid_t clock{};
  timespec cpu{};
  if (pthread_getcpuclockid(mpi_thread_, &clock) != 0 || clock_gettime(clock, &cpu) != 0) {
    return std::chrono::milliseconds::max();  // unknown: not starved
  }
  // /proc/self/task/<tid>/stat: "tid (comm) S ...", the state after the last ')'.
  std::ifstream stat("/proc/self/task/" + std::to_string(mpi_tid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  if (const std::size_t paren = text.rfind(')'); paren != std::string::npos && paren + 2 < text.size()) {
    *runnable = text[paren + 2] == 'R';
  }
  const auto now = std::chrono::seconds(cpu.tv_sec) + std::chrono::nanoseconds(cpu.tv_nsec);
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - cpu_at_left_);
}

void HangWatch::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, kHangWatchPeriod, [this] { return stopping_; })) {
    std::optional<Stall> stall = watch_.newStall(ProgressWatch::Clock::now());
    std::optional<std::chrono::milliseconds> resumed = watch_.takeResumed();
    if (!stall && !resumed) continue;
    std::chrono::milliseconds cpu{0};
    if (stall) {
      bool runnable = false;
      cpu = cpuSinceLeft(&runnable);
      if (runnable && cpu < stall->stalled / 10) {
        watch_.notYet();
        stall.reset();
        if (!resumed) continue;
      }
    }
    // Sampling and publishing without the lock: the MPI thread may come back meanwhile.
    lock.unlock();
    if (resumed) {
      Tags tags = identity_;
      tags["stalled_ms"] = msText(*resumed);
      publish_("FTB_MPI_RANK_RESUMED", tags, "progress again");
    }
    if (stall) announce(*stall, cpu);
    lock.lock();
  }
}

void HangWatch::announce(const Stall& stall, std::chrono::milliseconds cpu) {
  Tags tags = identity_;
  tags["stalled_ms"] = msText(stall.stalled);
  if (cpu != std::chrono::milliseconds::max()) tags["cpu_ms"] = msText(cpu);
  tags["bound_ms"] = msText(stall.bound);
  tags["iteration_ms"] = msText(stall.iteration);
  tags["iteration"] = std::to_string(stall.iteration_number);
  std::optional<StackSample> sample = sampleStack(mpi_thread_, kSampleWait);
  tags["where"] = !sample ? "unknown" : sample->in_mpi ? "mpi" : "application";
  if (sample) tags["stack"] = joinFrames(*sample, kFramesTold);
  const bool in_mpi = sample && sample->in_mpi;
  std::fprintf(stderr, "ftbckpt: rank %s: no ftbckpt_loop for %lld ms (bound %lld ms), stalled in %s\n",
               identity_.count("rank") ? identity_.at("rank").c_str() : "?",
               static_cast<long long>(stall.stalled.count()), static_cast<long long>(stall.bound.count()),
               tags["where"].c_str());
  // Without a stack there is no telling: a stall is announced as hung, and
  // the launcher's rules decide.
  publish_(in_mpi ? "FTB_MPI_RANK_WAITING" : "FTB_MPI_RANK_HUNG", tags,
           in_mpi ? "stalled inside MPI" : "hung: no progress");
}

}  // namespace ftb::mpi_bridge
