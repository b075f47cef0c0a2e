// What a start of the agent checks before it binds anything, in one place:
// `ftb-agent --check-config` runs exactly this and exits, a real start runs it
// and goes on (main.cc). Nothing here opens a socket or starts a thread, so a
// check never disturbs a running agent.
//
//   if (Status s = checkAgentConfig(config); !s.ok()) { ...one line, exit 2... }
#pragma once

#include <optional>
#include <set>
#include <string>

#include "agent/config/config.h"
#include "agent/transport/tree_link.h"
#include "client/curve_keys.h"
#include "client/status.h"

namespace ftb::agent {

// The Curve material of a configuration: this agent's pair, the server key it
// expects from other agents, and the keys it admits.
struct CurveSetup {
  CurveClientKeys keys;
  curve::AuthorizedKeys authorized;  // key -> the uid its holder acts as (remote clients)
};

// std::nullopt when Curve is off (no --curve-key-file). Errors name the file
// or option and what to do (unreadable key file: errno text and a hint).
Result<std::optional<CurveSetup>> loadCurveSetup(const AgentConfig& config);

// What an agent of `config` says at start (and --check-config) about its tree
// when it forms none for want of a cluster key: the one step that enables it.
// "" when the tree is enabled or there is no TCP endpoint.
std::string treeDisabledNotice(const AgentConfig& config);

// Endpoints and seeds well-formed, the namespace policy loads, the Curve keys
// load. kInvalidArgument / kFailedPrecondition / kPermissionDenied with a
// message that names the setting or file.
Status checkAgentConfig(const AgentConfig& config);

}  // namespace ftb::agent
