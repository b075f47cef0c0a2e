// L5: copies a checkpoint's blob from shared memory to a directory (the
// parallel file system) on a background thread, at most `mbps` MB/s, as
// <dir>/<job>/r<rank>-c<id>.ckpt (written as .tmp, renamed when complete).
// Keeps this rank's two newest complete files.
//
// Threading: start/busyWith/wait are called by the MPI thread; the copy runs on
// the flusher's own thread and never calls MPI.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/status.h"

namespace ftb::mpi_bridge {

struct FlushedBlob {
  int64_t ckpt_id = 0;
  int64_t iteration = 0;
  std::vector<uint8_t> blob;
};

class Flusher {
 public:
  Flusher(std::string dir, std::string job_id, int rank, double mbps);
  ~Flusher();  // waits for a running flush

  // Starts flushing `bytes` at `data` (which must stay valid until done).
  void start(int64_t ckpt_id, int64_t iteration, const uint8_t* data, std::size_t bytes, uint32_t crc);
  // The checkpoint being flushed, if any.
  std::optional<int64_t> busyWith() const;
  void wait();
  // The last flush's error, if it failed.
  Status lastError() const;

  // Ids of this rank's complete flushed checkpoints, newest first (not verified).
  std::vector<int64_t> list() const;
  // Reads and verifies one.
  Result<FlushedBlob> read(int64_t ckpt_id) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string path(int64_t ckpt_id) const;
  void run(int64_t ckpt_id, int64_t iteration, const uint8_t* data, std::size_t bytes, uint32_t crc);

  std::string dir_;
  int rank_;
  double mbps_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  std::optional<int64_t> busy_;
  Status last_error_;
  std::thread thread_;
};

}  // namespace ftb::mpi_bridge
