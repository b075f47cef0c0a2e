// Rank deaths announced by the ranks' last wills (FTB_MPI_PROCS_DEAD, published
// by a rank's agent within milliseconds of the death), gathered for a short
// settle window before ftb-run acts on them.
//
// Why a window: with a fail-stop MPI, every rank that survives a fault is
// killed by mpirun's own teardown within milliseconds, and each of those deaths
// is announced too. Which rank died first is not reliably visible (agents'
// detection jitters as much as the teardown takes), but where the fault is
// shows in WHO reports:
//  - a rank died on a live node: the teardown kills every other rank, so every
//    job node's agent reports deaths. No node is lost: restart the run in place
//    (the earliest death is passed on as the trigger);
//  - a whole node died: its agent died with it and reports nothing, the other
//    nodes report the teardown. The silent node is the suspect, but silence
//    within a window is no proof: ftb-run leaves that case to mpirun's exit and
//    the tree's FTB_NODE_LOST, as without wills.
// The window closes as soon as every job node has reported, else after
// `settle`. (The launcher ends the run at the first death, so the teardown's
// deaths follow within mpirun's teardown time, 0.1-0.5 s here.)
//
//   DeathWindow deaths(std::chrono::milliseconds(1000));
//   if (auto why = deaths.add(event, job, attempt, now)) log(*why);
//   if (deaths.due(now, job_nodes)) if (auto e = deaths.settle(job_nodes, &why)) policy.decide(*e);
//
// Threading: not synchronised; the launcher's event loop owns it. No clock of
// its own: time is passed in.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/event.h"

namespace ftb::launcher {

inline constexpr char kProcsDead[] = "FTB_MPI_PROCS_DEAD";

// Why a rank event (a death, FTB_RANK_FINISHED) is not one of job `job_id`'s
// run `attempt` (tags `job`, `attempt`), or nullopt when it is.
std::optional<std::string> notThisRun(const Event& event, const std::string& job_id, int attempt);

class DeathWindow {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  explicit DeathWindow(std::chrono::milliseconds settle) : settle_(settle) {}

  // Takes a death of job `job_id`'s run `attempt` and returns nullopt, or says
  // why the event is not one (another job, an earlier run: tags `job`,
  // `attempt`; a death without a node).
  std::optional<std::string> add(const Event& event, const std::string& job_id, int attempt, TimePoint now);

  bool open() const { return !deaths_.empty(); }
  // When the window closes at the latest (only while open()).
  TimePoint closesAt() const { return closes_; }
  // Open, and every node of `job_nodes` reported, or the window has passed.
  bool due(TimePoint now, const std::set<std::string>& job_nodes) const;

  // Closes the window: the earliest death (by its publish time) when every
  // node of `job_nodes` reported deaths, else nullopt with the reason in `why`.
  std::optional<Event> settle(const std::set<std::string>& job_nodes, std::string* why);
  void clear() { deaths_.clear(); }

 private:
  std::set<std::string> silent(const std::set<std::string>& job_nodes) const;

  std::chrono::milliseconds settle_;
  std::vector<Event> deaths_;
  TimePoint closes_{};
};

}  // namespace ftb::launcher
