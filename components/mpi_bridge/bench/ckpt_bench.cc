// Checkpoint and restart throughput per level, per process, next to this
// machine's memcpy bandwidth measured in the same run (all ranks copying at
// once, like they checkpoint at once), and ISA-L's Reed-Solomon encode rate.
// All figures are per process (GB/s of protected data).
// Prints figures; asserts nothing about time.
//
//   mpirun -np 4 -x FTBCKPT_NODE_MAP=n0,n1,n2,n3 ckpt_bench [MiB per rank] [reps] [levels, e.g. 13]
#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "components/mpi_bridge/codec.h"
#include "components/mpi_bridge/ftbckpt.hpp"
#include "components/mpi_bridge/shm_segment.h"

using namespace ftb::mpi_bridge;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Slowest rank's time of f(), best of `reps`.
template <typename F>
double timeCollective(int reps, F f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto t = Clock::now();
    f();
    double s = since(t);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, s);
  }
  return best;
}

double rsEncodeGBps(std::size_t symbol) {
  const int k = 8, m = 2;
  std::vector<std::vector<uint8_t>> data(k, std::vector<uint8_t>(symbol, 1)), parity(m, std::vector<uint8_t>(symbol));
  std::vector<const uint8_t*> in;
  for (auto& d : data) in.push_back(d.data());
  RsCodec rs;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto t = Clock::now();
    for (int p = 0; p < m; ++p) rs.encode(k, m, p, symbol, in.data(), parity[p].data());
    best = std::min(best, since(t));
  }
  return k * symbol / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::size_t bytes = mib << 20;
  setenv("FTBCKPT_AGENT", "0", 1);
  auto config = configFromEnvironment();
  if (!config) {
    std::fprintf(stderr, "ckpt_bench: %s\n", config.status().toString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<uint8_t> state(bytes), copy(bytes);
  for (std::size_t i = 0; i < bytes; ++i) state[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  std::memcpy(copy.data(), state.data(), bytes);  // fault both in

  // memcpy is measured in turns with the checkpoints of each level: on a
  // shared machine the load changes during the run, and the ratio should
  // compare like with like.
  auto copyOnce = [&] { std::memcpy(copy.data(), state.data(), bytes); };
  if (rank == 0) {
    std::printf("ranks %d, %zu MiB per rank, best of %d (memcpy and checkpoints in turns, after 2 warm-up checkpoints)\n",
                size, mib, reps);
    std::printf("ISA-L RS(8,2) encode: %.2f GB/s of data (one process)\n", rsEncodeGBps(16 << 20));
    std::printf("%-6s %12s %14s %9s %17s %17s\n", "level", "memcpy GB/s", "ckpt GB/s", "x memcpy", "restart GB/s",
                "rebuild GB/s");
  }
  std::string node = *nodeOfRank(*config, rank);
  std::string levels = argc > 3 ? argv[3] : (config->flush_dir.empty() ? "1234" : "12345");
  for (char digit : levels) {
    const int l = digit - '0';
    if (l < 1 || l > 5) continue;
    const Level level = static_cast<Level>(l);
    config->job_id = "BENCH" + std::to_string(l);
    auto writer = Runtime::create(MPI_COMM_WORLD, *config);
    if (!writer) MPI_Abort(MPI_COMM_WORLD, 3);
    (void)(*writer)->protect(0, state.data(), bytes);
    long it = 0;
    auto checkpointOnce = [&] {
      auto r = (*writer)->checkpoint(level, ++it);
      if (!r) {
        std::fprintf(stderr, "ckpt_bench: %s\n", r.status().toString().c_str());
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
    };
    checkpointOnce();  // both slots exist before timing starts: steady state
    checkpointOnce();
    double copy_s = 1e30, ckpt_s = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      copy_s = std::min(copy_s, timeCollective(1, copyOnce));
      ckpt_s = std::min(ckpt_s, timeCollective(1, checkpointOnce));
    }
    const double memcpy_gbps = bytes / copy_s / 1e9;
    (void)(*writer)->waitFlush();
    // Restart with every node's memory intact.
    double restart_s = timeCollective(1, [&] {
      auto reader = Runtime::create(MPI_COMM_WORLD, *config);
      (void)(*reader)->protect(0, copy.data(), bytes);
      if (!(*reader)->recover()) MPI_Abort(MPI_COMM_WORLD, 5);
      (void)reader->release();  // keep the files for the next measurement
    });
    // Restart after the first node lost its memory (L2-L4: rebuilt from the group).
    double rebuild_s = 0;
    if (l >= 2 && l <= 4) {
      if (node == *nodeOfRank(*config, 0)) {
        for (int s = 0; s < 2; ++s) {
          ShmSegment::remove("/ftbckpt-" + config->job_id + "-" + node + "-r" + std::to_string(rank) + "-s" +
                             std::to_string(s));
        }
      }
      rebuild_s = timeCollective(1, [&] {
        auto reader = Runtime::create(MPI_COMM_WORLD, *config);
        (void)(*reader)->protect(0, copy.data(), bytes);
        if (!(*reader)->recover()) MPI_Abort(MPI_COMM_WORLD, 6);
        (void)reader->release();
      });
    }
    if (std::memcmp(copy.data(), state.data(), bytes) != 0) {
      std::fprintf(stderr, "ckpt_bench: rank %d restored different data at L%d\n", rank, l);
      MPI_Abort(MPI_COMM_WORLD, 7);
    }
    (*writer)->finalize();  // frees the job's memory and flushed files
    if (rank == 0) {
      char rebuild[32] = "-";
      if (rebuild_s > 0) std::snprintf(rebuild, sizeof rebuild, "%.3f", bytes / rebuild_s / 1e9);
      std::printf("L%-5d %12.2f %14.2f %9.2f %17.2f %17s\n", l, memcpy_gbps, bytes / ckpt_s / 1e9,
                  bytes / ckpt_s / 1e9 / memcpy_gbps, bytes / restart_s / 1e9, rebuild);
    }
  }
  MPI_Finalize();
  return 0;
}
