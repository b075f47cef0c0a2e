// A STAND-IN for the checkpoint runtime's stencil (components/mpi_bridge),
// used by the lab tests only until that runtime exists. It speaks the events
// of docs/RECOVERY_EVENTS.md with the smallest possible runtime:
//   standin_job ITERATIONS WORDS_PER_RANK SLEEP_MS
// Each iteration mixes every rank's state with its ring neighbour's. Rank 0
// polls FTB.JL.<job> once per iteration and broadcasts what it got, so every
// rank acts at the same iteration:
//   FTB_CHECKPOINT -> every rank checkpoints, answers FTB_CHECKPOINT_DONE;
//   FTB_MIGRATE    -> checkpoint, FTB_MIGRATE_PIC for the source, exit 75 (relaunch me).
// A checkpoint is the state in this node's /dev/shm plus a copy at a partner
// rank (rank + size/2) on another node. With FTB_CORR_ID set it restores: own
// copy if this node has it, else the partner's (FTB_RESTART_DONE rebuilt=partner).
// Prints "RESULT iterations=<n> checksum=<hex>" at the end (rank 0).
#include <mpi/mpi.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "client/client.h"

namespace {

constexpr int kRelaunchExit = 75;
enum Command : int { kNone = 0, kCheckpoint = 1, kMigrate = 2 };
struct Order {
  int command = kNone;
  char corr[64] = {};
  char source[64] = {};
};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string shmPath(const std::string& job, const std::string& what, int rank) {
  return "/dev/shm/ftb-standin-" + job + "-" + what + "-" + std::to_string(rank);
}

void writeFile(const std::string& path, int64_t iter, const std::vector<uint64_t>& state) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&iter), sizeof iter);
  out.write(reinterpret_cast<const char*>(state.data()), static_cast<std::streamsize>(state.size() * 8));
}

bool readFile(const std::string& path, int64_t& iter, std::vector<uint64_t>& state) {
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(&iter), sizeof iter)) return false;
  return static_cast<bool>(in.read(reinterpret_cast<char*>(state.data()), static_cast<std::streamsize>(state.size() * 8)));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) std::fprintf(stderr, "usage: standin_job ITERATIONS WORDS_PER_RANK SLEEP_MS\n");
    MPI_Finalize();
    return 2;
  }
  const int64_t iterations = std::atoll(argv[1]);
  const std::size_t words = std::strtoull(argv[2], nullptr, 10);
  const int sleep_ms = std::atoi(argv[3]);
  const std::string job = env("FTB_JOB_ID");
  const std::string host = env("FTB_NODE_NAME");
  const std::string corr = env("FTB_CORR_ID");
  const int partner = (rank + size / 2) % size;      // holds my copy
  const int ward = (rank - size / 2 + size) % size;  // whose copy I hold

  auto client = ftb::Client::connect({.event_space = "FTB.MPI.FTBCKPT", .client_name = "standin_job", .job_id = job});
  if (!client.ok()) {
    std::fprintf(stderr, "rank %d: no agent: %s\n", rank, client.status().toString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  ftb::Client& ftb = **client;
  (void)ftb.declare({{"FTB_CHECKPOINT_DONE", ftb::Severity::kInfo},
                     {"FTB_MIGRATE_PIC", ftb::Severity::kInfo},
                     {"FTB_RESTART_DONE", ftb::Severity::kInfo},
                     {"FTB_RESTART_FAILED", ftb::Severity::kFatal}});
  ftb::SubscriptionId sub = 0;
  if (rank == 0) {
    auto s = ftb.subscribe({.filter = "event_space=FTB.JL." + job + ", event_name=FTB_CHECKPOINT|FTB_MIGRATE",
                            .polling = true});
    if (!s.ok()) MPI_Abort(MPI_COMM_WORLD, 3);
    sub = *s;
  }

  std::vector<uint64_t> state(words), copy(words), incoming(words);
  for (std::size_t i = 0; i < words; ++i) {  // splitmix64 of (rank, i)
    uint64_t z = (static_cast<uint64_t>(rank) * words + i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    state[i] = z ^ (z >> 31);
  }
  int64_t iter = 0;

  if (!corr.empty()) {  // a relaunch: restore
    int64_t own_iter = -1, ward_iter = -1;
    int have_own = readFile(shmPath(job, "own", rank), own_iter, state) ? 1 : 0;
    bool have_ward = readFile(shmPath(job, "copy", ward), ward_iter, copy);
    std::vector<int> owns(static_cast<std::size_t>(size));
    MPI_Allgather(&have_own, 1, MPI_INT, owns.data(), 1, MPI_INT, MPI_COMM_WORLD);
    // The holder of a rank that lost its own copy sends it the partner copy.
    if (!owns[static_cast<std::size_t>(ward)] && have_ward) {
      MPI_Send(&ward_iter, 1, MPI_INT64_T, ward, 1, MPI_COMM_WORLD);
      MPI_Send(copy.data(), static_cast<int>(words), MPI_UINT64_T, ward, 2, MPI_COMM_WORLD);
    }
    if (!have_own) {
      MPI_Recv(&own_iter, 1, MPI_INT64_T, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(state.data(), static_cast<int>(words), MPI_UINT64_T, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int64_t lo = 0, hi = 0;
    MPI_Allreduce(&own_iter, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&own_iter, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || lo < 0) {
      (void)ftb.publish("FTB_RESTART_FAILED", "inconsistent checkpoints",
                        {{"corr", corr}, {"rank", std::to_string(rank)}, {"reason", "inconsistent"}});
      (void)ftb.flush(std::chrono::seconds(2));
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    iter = lo;
    (void)ftb.publish("FTB_RESTART_DONE", "restored",
                      {{"corr", corr}, {"rank", std::to_string(rank)}, {"ckpt_id", std::to_string(iter)},
                       {"level", have_own ? "L1" : "L2"}, {"rebuilt", have_own ? "none" : "partner"}});
  }

  for (;; ++iter) {
    Order order;
    if (rank == 0) {
      auto n = ftb.poll(sub, std::chrono::milliseconds(0));
      if (n.ok() && *n && (*n)->kind == ftb::Notification::Kind::kEvent) {
        const ftb::Event& e = (*n)->event;
        order.command = e.event_name == "FTB_MIGRATE" ? kMigrate : kCheckpoint;
        auto tag = [&](const char* k) { auto it = e.tags.find(k); return it == e.tags.end() ? std::string() : it->second; };
        std::snprintf(order.corr, sizeof order.corr, "%s", tag("corr").c_str());
        std::snprintf(order.source, sizeof order.source, "%s", tag("source").c_str());
      }
    }
    MPI_Bcast(&order, sizeof order, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (order.command != kNone || iter == iterations) {
      // Checkpoint: own copy here, partner copy at `partner`.
      writeFile(shmPath(job, "own", rank), iter, state);
      MPI_Sendrecv(state.data(), static_cast<int>(words), MPI_UINT64_T, partner, 3, incoming.data(),
                   static_cast<int>(words), MPI_UINT64_T, ward, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      writeFile(shmPath(job, "copy", ward), iter, incoming);
      if (order.command != kNone) {
        (void)ftb.publish("FTB_CHECKPOINT_DONE", "checkpointed",
                          {{"corr", order.corr}, {"rank", std::to_string(rank)}, {"ckpt_id", std::to_string(iter)},
                           {"level", "L2"}, {"bytes", std::to_string(words * 8)}});
      }
    }
    if (order.command == kMigrate) {
      // The lowest rank of the source reports for it; everyone exits to be relaunched.
      int mine = host == order.source ? rank : size, lowest = size;
      MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (rank == lowest) {
        (void)ftb.publish("FTB_MIGRATE_PIC", "checkpointed and leaving",
                          {{"corr", order.corr}, {"source", order.source}});
      }
      (void)ftb.flush(std::chrono::seconds(2));
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Finalize();
      return kRelaunchExit;
    }
    if (iter == iterations) break;
    uint64_t mine = state[0], left = 0;
    MPI_Sendrecv(&mine, 1, MPI_UINT64_T, (rank + 1) % size, 0, &left, 1, MPI_UINT64_T, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (std::size_t i = 0; i < words; ++i) {
      const uint64_t x = state[i] * 6364136223846793005ull + 1442695040888963407ull + (left ^ (i + static_cast<uint64_t>(iter)));
      state[i] = x ^ (x >> 29);
    }
    if (rank == 0 && iter % 10 == 0) {
      std::printf("iter %" PRId64 "\n", iter);
      std::fflush(stdout);
    }
    if (sleep_ms > 0) usleep(static_cast<useconds_t>(sleep_ms) * 1000);
  }
  uint64_t h = 1469598103934665603ull;
  for (uint64_t w : state) h = (h ^ w) * 1099511628211ull;
  uint64_t all = 0;
  MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("RESULT iterations=%" PRId64 " checksum=%016" PRIx64 "\n", iterations, all);
  (void)ftb.disconnect();
  MPI_Finalize();
  return 0;
}
