#include "agent/config/reload_plan.h"

#include <fmt/format.h>

#include "agent/config/config_check.h"
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

Result<PreparedReload> prepareReload(const AgentConfig& running, Result<AgentConfig> loaded) {
  if (!loaded.ok()) return loaded.status();
  // What `ftb-agent --check-config` refuses, a reload refuses too.
  if (Status checked = checkAgentConfig(*loaded); !checked.ok()) return checked;
  Result<NamespacePolicy> policy = NamespacePolicy::load(loaded->policy_file);
  if (!policy.ok()) return policy.status();
  if (loaded->name.empty()) loaded->name = running.name;
  return PreparedReload{.plan = planReload(running, *loaded), .policy = std::move(policy).value()};
}

std::string restartNotice(const std::string& key) {
  return key + " changed: takes effect at restart";
}

}  // namespace ftb::agent
