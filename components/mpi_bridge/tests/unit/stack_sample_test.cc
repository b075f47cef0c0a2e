// Stack sampling (stack_sample.h): a thread's stack from its own signal
// handler, and which frames count as MPI.
#define BOOST_TEST_MODULE stack_sample_test
#include "components/mpi_bridge/stack_sample.h"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>

using namespace ftb::mpi_bridge;
using namespace std::chrono_literals;

namespace {

std::atomic<bool> g_spinning{false}, g_stop{false};

// Exported (not static) so that dladdr can name it.
extern "C" __attribute__((noinline)) void ftb_test_spin_in_application_code() {
  g_spinning = true;
  while (!g_stop.load(std::memory_order_relaxed)) {
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(mpi_libraries_are_known_by_name) {
  BOOST_CHECK(isMpiLibrary("/usr/lib/x86_64-linux-gnu/libmpi.so.40"));
  BOOST_CHECK(isMpiLibrary("/usr/lib/x86_64-linux-gnu/libopen-pal.so.40"));
  BOOST_CHECK(isMpiLibrary("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so"));
  BOOST_CHECK(isMpiLibrary("libucp.so.0"));
  BOOST_CHECK(!isMpiLibrary("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  BOOST_CHECK(!isMpiLibrary("/usr/bin/stencil"));
  BOOST_CHECK(!isMpiLibrary("/opt/app/lib/libmpich_wrapper_of_mine.so/libfoo.so"));
}

BOOST_AUTO_TEST_CASE(a_spinning_thread_is_sampled_in_its_own_code) {
  BOOST_REQUIRE(installStackSampler());
  std::thread spinner(ftb_test_spin_in_application_code);
  while (!g_spinning) std::this_thread::yield();
  // A generous wait: on a loaded machine the thread may not run for a while.
  std::optional<StackSample> sample = sampleStack(spinner.native_handle(), 10s);
  g_stop = true;
  spinner.join();
  BOOST_REQUIRE(sample);
  BOOST_CHECK(!sample->in_mpi);
  const std::string frames = joinFrames(*sample, 8);
  BOOST_TEST_MESSAGE("frames: " << frames);
  BOOST_CHECK_MESSAGE(frames.find("ftb_test_spin_in_application_code") != std::string::npos, frames);
}
