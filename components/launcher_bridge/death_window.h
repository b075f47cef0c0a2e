// Rank deaths announced by the ranks' last wills (FTB_MPI_PROCS_DEAD, published
// by a rank's agent within milliseconds of the death), gathered for a short
// settle window before ftb-run acts on them.
//
// Why a window: with a fail-stop MPI, every rank that survives a fault is then
// killed by mpirun's own teardown, and each of those deaths is announced too.
// When one rank dies, its will comes first and the teardown's only later
// (mpirun needs 0.1-0.2 s to react). When a whole node dies, its agent dies
// with it and announces nothing: the first wills are the teardown's, from every
// surviving node at once. So: deaths on ONE node within the window -> act on
// that node at once; deaths on several nodes -> not evidence of where the
// fault is (left to mpirun's exit and the agents' FTB_AGENT_CHILD_LOST).
//
//   DeathWindow deaths(std::chrono::milliseconds(50));
//   if (auto why = deaths.add(event, job, attempt, now)) log(*why);
//   if (deaths.due(now)) if (auto e = deaths.settle(&why)) policy.decide(*e);
//
// Threading: not synchronised; the launcher's event loop owns it. No clock of
// its own: time is passed in.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "client/event.h"

namespace ftb::launcher {

inline constexpr char kProcsDead[] = "FTB_MPI_PROCS_DEAD";

class DeathWindow {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  explicit DeathWindow(std::chrono::milliseconds settle) : settle_(settle) {}

  // Takes a death of job `job_id`'s run `attempt` and returns nullopt, or says
  // why the event is not one (another job, an earlier run: tags `job`,
  // `attempt`; a death without a node).
  std::optional<std::string> add(const Event& event, const std::string& job_id, int attempt, TimePoint now);

  bool open() const { return !deaths_.empty(); }
  // When the window closes (only while open()).
  TimePoint closesAt() const { return closes_; }
  bool due(TimePoint now) const { return open() && now >= closes_; }

  // Closes the window: the first death when every death in it was on one node,
  // else nullopt with the reason in `why`.
  std::optional<Event> settle(std::string* why);
  void clear() { deaths_.clear(); }

 private:
  std::chrono::milliseconds settle_;
  std::vector<Event> deaths_;
  TimePoint closes_{};
};

}  // namespace ftb::launcher
