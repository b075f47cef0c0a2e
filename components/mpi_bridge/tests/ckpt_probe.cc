// An MPI program for the restore tests: writes checkpoints of known content,
// or restores and checks the content bit for bit.
//
//   ckpt_probe write L5,L3   checkpoint i (i = 0, 1, ...) at the i-th level, with
//                            content pattern(rank, i); then end WITHOUT freeing
//                            the shared memory (as if the job had been killed)
//   ckpt_probe verify N      recover; print one VERIFY line per rank; exit 0 if
//                            every rank restored checkpoint N with pattern(rank, N),
//                            3 if content differs, 4 if recovery failed
//   ckpt_probe restore N     as verify, then end WITHOUT freeing the shared
//                            memory: what the restore and its re-protection
//                            left is there for the next run
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "components/mpi_bridge/ftbckpt.hpp"

using namespace ftb::mpi_bridge;

namespace {

// Sizes differ per rank (padding) and cross the 1 MiB encoding chunk.
std::size_t smallBytes(int rank) { return 1000 + 37 * rank; }
std::size_t largeBytes(int rank) { return (2u << 20) + 4099 * rank; }

void fill(std::vector<uint8_t>& buf, int rank, int ckpt, int which) {
  uint64_t x = 0x9e3779b97f4a7c15ull * (rank + 1) + 0x632be59bd9b4e019ull * (ckpt + 1) + which;
  for (auto& b : buf) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<uint8_t>(x);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    std::fprintf(stderr, "usage: ckpt_probe write L1,L2,... | verify N | restore N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto config = configFromEnvironment();
  if (!config) {
    std::fprintf(stderr, "ckpt_probe: %s\n", config.status().toString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto rt = Runtime::create(MPI_COMM_WORLD, *config);
  if (!rt) {
    std::fprintf(stderr, "ckpt_probe: %s\n", rt.status().toString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<uint8_t> small(smallBytes(rank)), large(largeBytes(rank));
  (void)(*rt)->protect(0, small.data(), small.size());
  (void)(*rt)->protect(1, large.data(), large.size());
  int code = 0;
  if (std::string(argv[1]) == "write") {
    std::stringstream levels(argv[2]);
    int i = 0;
    for (std::string name; std::getline(levels, name, ','); ++i) {
      fill(small, rank, i, 0);
      fill(large, rank, i, 1);
      auto level = parseLevel(name);
      auto r = level ? (*rt)->checkpoint(*level, 100 + i) : ftb::Result<CheckpointReport>(level.status());
      if (!r) {
        std::fprintf(stderr, "ckpt_probe: rank %d: checkpoint %d: %s\n", rank, i, r.status().toString().c_str());
        code = 4;
        break;
      }
      if (rank == 0) {
        std::printf("WROTE ckpt=%lld level=%s bytes=%llu stored=%llu\n", static_cast<long long>(r->ckpt_id),
                    levelName(r->level).c_str(), static_cast<unsigned long long>(r->bytes),
                    static_cast<unsigned long long>(r->stored));
      }
    }
    if (auto s = (*rt)->waitFlush(); !s.ok()) {
      std::fprintf(stderr, "ckpt_probe: flush: %s\n", s.toString().c_str());
      code = 4;
    }
    // No finalize: the checkpoint stays in shared memory as after a crash.
    (void)rt->release();
  } else {
    const int expect = std::atoi(argv[2]);
    std::printf("AVAILABLE rank=%d %d\n", rank, (*rt)->restartAvailable() ? 1 : 0);
    auto r = (*rt)->recover();
    if (!r) {
      std::printf("VERIFY rank=%d failed: %s\n", rank, r.status().toString().c_str());
      code = 4;
    } else {
      std::vector<uint8_t> want_small(small.size()), want_large(large.size());
      fill(want_small, rank, expect, 0);
      fill(want_large, rank, expect, 1);
      bool same = r->ckpt_id == expect && r->iteration == 100 + expect && small == want_small && large == want_large;
      std::printf("VERIFY rank=%d ok=%d ckpt=%lld iteration=%lld source=%s rebuilt=%s\n", rank, same ? 1 : 0,
                  static_cast<long long>(r->ckpt_id), static_cast<long long>(r->iteration),
                  levelName(r->source).c_str(), r->rebuilt.c_str());
      if (!same) code = 3;
    }
    std::fflush(stdout);
    if (std::string(argv[1]) == "restore") {
      (void)rt->release();
    } else {
      (*rt)->finalize();
    }
  }
  std::fflush(stdout);
  MPI_Allreduce(MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
