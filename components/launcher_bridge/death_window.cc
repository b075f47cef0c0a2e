#include "components/launcher_bridge/death_window.h"

#include <algorithm>

#include "components/launcher_bridge/lists.h"
#include "components/launcher_bridge/policy.h"

namespace ftb::launcher {
namespace {
std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}
}  // namespace

std::optional<std::string> notThisRun(const Event& event, const std::string& job_id, int attempt) {
  const std::string job = tag(event, "job");
  if (!job.empty() && job != job_id) return "an event of job " + job + ", not " + job_id;
  const std::string run = tag(event, "attempt");
  if (!run.empty() && run != std::to_string(attempt)) {
    return "an event of run " + run + " (now " + std::to_string(attempt) + "): already handled";
  }
  return std::nullopt;
}

std::optional<std::string> DeathWindow::add(const Event& event, const std::string& job_id, int attempt,
                                            TimePoint now) {
  if (auto why = notThisRun(event, job_id, attempt)) return why;
  if (Policy::nodeOf(event).empty()) return "a death that names no node (tag host or node)";
  if (deaths_.empty()) closes_ = now + settle_;
  deaths_.push_back(event);
  return std::nullopt;
}

std::set<std::string> DeathWindow::silent(const std::set<std::string>& job_nodes) const {
  std::set<std::string> quiet = job_nodes;
  for (const Event& e : deaths_) quiet.erase(Policy::nodeOf(e));
  return quiet;
}

bool DeathWindow::due(TimePoint now, const std::set<std::string>& job_nodes) const {
  return open() && (now >= closes_ || silent(job_nodes).empty());
}

std::optional<Event> DeathWindow::settle(const std::set<std::string>& job_nodes, std::string* why) {
  const std::set<std::string> quiet = silent(job_nodes);
  std::vector<Event> deaths;
  deaths.swap(deaths_);
  if (deaths.empty()) {
    *why = "no deaths";
    return std::nullopt;
  }
  if (quiet.empty()) {
    // stable: equal times keep their arrival order
    return *std::min_element(deaths.begin(), deaths.end(), [](const Event& a, const Event& b) {
      return std::pair(a.time_sec, a.time_nsec) < std::pair(b.time_sec, b.time_nsec);
    });
  }
  *why = std::to_string(deaths.size()) + " ranks' deaths announced, none from node(s) " + joinList(quiet) + " within " +
         std::to_string(settle_.count()) +
         " ms: their agent may have died with them (a dead node); left to the job's exit and the agents";
  return std::nullopt;
}

}  // namespace ftb::launcher
