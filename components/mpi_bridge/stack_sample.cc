#include "components/mpi_bridge/stack_sample.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace ftb::mpi_bridge {
namespace {

const int kStackSampleSignal = SIGRTMAX - 3;
constexpr int kMaxFrames = 48;
// The handler's own frame and the kernel's signal trampoline come first.
constexpr int kSignalFrames = 2;

void* g_frames[kMaxFrames];
std::atomic<int> g_frame_count{-1};

void onSampleSignal(int) {
  const int saved_errno = errno;
  g_frame_count.store(backtrace(g_frames, kMaxFrames), std::memory_order_release);
  errno = saved_errno;
}

std::string baseName(const char* path) {
  std::string_view p = path ? path : "?";
  const std::size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// "ns::function", without its parameters, template arguments or spaces (a tag value has none).
std::string functionName(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  for (char cut : {'(', '<'}) {
    if (const std::size_t at = name.find(cut); at != std::string::npos && at > 0) name.resize(at);
  }
  std::erase(name, ' ');
  return name;
}

std::string describe(void* address, bool return_address) {
  // A return address may lie just past its call, in the next function.
  void* lookup = return_address ? static_cast<char*>(address) - 1 : address;
  Dl_info info{};
  if (dladdr(lookup, &info) == 0) return "?";
  std::string object = baseName(info.dli_fname);
  if (info.dli_sname) return object + ":" + functionName(info.dli_sname);
  char offset[32];
  std::snprintf(offset, sizeof offset, "+0x%zx",
                static_cast<std::size_t>(static_cast<char*>(address) - static_cast<char*>(info.dli_fbase)));
  return object + offset;
}

}  // namespace

bool installStackSampler() {
  static std::once_flag once;
  static bool ours = false;
  std::call_once(once, [] {
    // backtrace() loads libgcc_s on its first call: done here, not in the handler.
    void* warm[2];
    (void)backtrace(warm, 2);
    struct sigaction current {};
    if (sigaction(kStackSampleSignal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
    struct sigaction action {};
    action.sa_handler = onSampleSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ours = sigaction(kStackSampleSignal, &action, nullptr) == 0;
  });
  return ours;
}

std::optional<StackSample> sampleStack(pthread_t thread, std::chrono::milliseconds wait) {
  if (!installStackSampler()) return std::nullopt;
  g_frame_count.store(-1, std::memory_order_relaxed);
  if (pthread_kill(thread, kStackSampleSignal) != 0) return std::nullopt;
  const auto until = std::chrono::steady_clock::now() + wait;
  int count = -1;
  while ((count = g_frame_count.load(std::memory_order_acquire)) < 0) {
    if (std::chrono::steady_clock::now() > until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  StackSample sample;
  for (int i = kSignalFrames; i < count; ++i) {
    Dl_info info{};
    if (dladdr(g_frames[i], &info) != 0 && isMpiLibrary(info.dli_fname ? info.dli_fname : "")) sample.in_mpi = true;
    sample.frames.push_back(describe(g_frames[i], /*return_address=*/i > kSignalFrames));
  }
  return sample;
}

bool isMpiLibrary(std::string_view object_path) {
  const std::size_t slash = object_path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? object_path : object_path.substr(slash + 1);
  for (std::string_view prefix : {"libmpi", "libopen-pal", "libopen-rte", "libprrte", "libpmix", "libucp", "libucs",
                                  "libuct", "libfabric", "libpsm", "mca_"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

std::string joinFrames(const StackSample& sample, std::size_t max_frames) {
  std::string out;
  for (std::size_t i = 0; i < sample.frames.size() && i < max_frames; ++i) {
    if (i) out += ';';
    out += sample.frames[i];
  }
  return out;
}

}  // namespace ftb::mpi_bridge
