#include "components/launcher_bridge/death_window.h"

#include <set>

#include "components/launcher_bridge/policy.h"

namespace ftb::launcher {
namespace {
std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}
}  // namespace

std::optional<std::string> DeathWindow::add(const Event& event, const std::string& job_id, int attempt,
                                            TimePoint now) {
  const std::string job = tag(event, "job");
  if (!job.empty() && job != job_id) return "a death in job " + job + ", not " + job_id;
  const std::string run = tag(event, "attempt");
  if (!run.empty() && run != std::to_string(attempt)) {
    return "a death of run " + run + " (now " + std::to_string(attempt) + "): already handled";
  }
  if (Policy::nodeOf(event).empty()) return "a death that names no node (tag host or node)";
  if (deaths_.empty()) closes_ = now + settle_;
  deaths_.push_back(event);
  return std::nullopt;
}

std::optional<Event> DeathWindow::settle(std::string* why) {
  std::vector<Event> deaths;
  deaths.swap(deaths_);
  if (deaths.empty()) {
    *why = "no deaths";
    return std::nullopt;
  }
  std::set<std::string> nodes;
  for (const Event& e : deaths) nodes.insert(Policy::nodeOf(e));
  if (nodes.size() == 1) return deaths.front();
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  *why = std::to_string(deaths.size()) + " ranks died on " + std::to_string(nodes.size()) + " nodes (" + list +
         ") within " + std::to_string(settle_.count()) +
         " ms: mpirun's teardown after a fault elsewhere (a dead node?), or several faults; "
         "left to the job's exit and the agents";
  return std::nullopt;
}

}  // namespace ftb::launcher
