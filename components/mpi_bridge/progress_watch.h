// Is this rank still making progress? (issue 33, "a watchdog that acts")
// The application calls ftbckpt_loop once per iteration; between two calls it
// computes. A rank whose next call is overdue by more than `factor` times its
// longest recent compute phase (never less than `floor`) is stalled: hung in
// its own code, or waiting in MPI for a peer that is. Time spent inside
// ftbckpt_loop is not watched: the runtime's own steps have their deadlines.
//
// Pure and single-threaded: the caller passes the time and serialises calls
// (hang_watch.h does both).
#pragma once

#include <chrono>
#include <deque>
#include <optional>

namespace ftb::mpi_bridge {

struct StallBound {
  std::chrono::milliseconds floor{1000};  // FTBCKPT_HANG_FLOOR_MS
  double factor = 3;                      // FTBCKPT_HANG_FACTOR
};

struct Stall {
  std::chrono::milliseconds stalled{0};    // since the last loop call returned
  std::chrono::milliseconds bound{0};      // what it was measured against
  std::chrono::milliseconds iteration{0};  // the longest recent compute phase
  long iteration_number = 0;               // what that last loop call returned
};

class ProgressWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ProgressWatch(StallBound bound) : bound_(bound) {}

  // ftbckpt_loop was called (the compute phase ended) / returned `iteration`.
  void entered(Clock::time_point now);
  void left(Clock::time_point now, long iteration);

  // A stall, reported once until progress resumes; nothing while the rank
  // progresses, sits in ftbckpt_loop, or has not yet finished one compute
  // phase (the first one includes the application's set-up).
  std::optional<Stall> newStall(Clock::time_point now);
  // The caller looked closer and it was no stall yet (a starved thread):
  // newStall() may report this stall again later.
  void notYet() { reported_ = false; }
  // Progress after a reported stall: how long it lasted, reported once.
  std::optional<std::chrono::milliseconds> takeResumed();

  std::chrono::milliseconds currentBound() const;

 private:
  StallBound bound_;
  std::deque<Clock::duration> recent_;  // the last kRemembered compute phases
  std::optional<Clock::time_point> computing_since_;
  long iteration_ = 0;
  bool reported_ = false;
  std::optional<std::chrono::milliseconds> resumed_after_;
};

}  // namespace ftb::mpi_bridge
