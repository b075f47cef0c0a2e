// What a reload does with a newly read configuration, decided from the settings
// table alone (no agent, no sockets), so that it can be tested on its own:
// every live setting takes its new value, every restart-only setting keeps the
// running one and is named in a warning.
//
//   Result<PreparedReload> prepared = prepareReload(config_, reloader());
//   if (!prepared.ok()) ... the running configuration stays, log why
//   for (const auto& key : prepared->plan.restart_pending) spdlog::warn(restartNotice(key));
//   config_ = prepared->plan.next;  // then apply the live settings' side effects
#pragma once

#include <string>
#include <vector>

#include "agent/config/config.h"
#include "agent/security/namespace_policy.h"
#include "client/status.h"

namespace ftb::agent {

struct ReloadPlan {
  AgentConfig next;                          // the running config with every live setting from the file
  std::vector<std::string> live_changes;     // "history-events 10000->3", in table order
  std::vector<std::string> restart_pending;  // keys of restart-only settings whose value differs
};

// `running` is what the agent uses now, `loaded` what the file and flags say now.
ReloadPlan planReload(const AgentConfig& running, const AgentConfig& loaded);

// A reload ready to apply: its plan and the namespace policy its file names.
struct PreparedReload {
  ReloadPlan plan;
  NamespacePolicy policy;
};

// Checks `loaded` as `ftb-agent --check-config` does, loads its policy file
// and plans the reload (an empty name stays the running one: the host name
// resolved at start). An error says why the running configuration stays.
Result<PreparedReload> prepareReload(const AgentConfig& running, Result<AgentConfig> loaded);

// The one log line per pending key: "metrics-listen changed: takes effect at restart".
std::string restartNotice(const std::string& key);

}  // namespace ftb::agent
