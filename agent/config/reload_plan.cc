#include "agent/config/reload_plan.h"

#include <fmt/format.h>

#include "agent/config/settings.h"

namespace ftb::agent {

ReloadPlan planReload(const AgentConfig& running, const AgentConfig& loaded) {
  ReloadPlan plan{.next = running};
  for (const Setting& s : agentSettings()) {
    if (sameValue(s, running, loaded)) continue;
    if (s.reload == Reload::kRestart) {
      plan.restart_pending.emplace_back(s.key);
      continue;
    }
    plan.live_changes.push_back(
        fmt::format("{} {}->{}", s.key, displayText(s, running), displayText(s, loaded)));
    copyValue(s, loaded, plan.next);
  }
  return plan;
}

std::string restartNotice(const std::string& key) {
  return key + " changed: takes effect at restart";
}

}  // namespace ftb::agent
