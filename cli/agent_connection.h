// How ftbctl reaches the agent: the control API for status/clients/history, the
// SDK for publish/watch. Both fail fast and with a CLI-worded message when no
// agent answers at --agent.
#pragma once

#include <memory>

#include "cli/command.h"
#include "client/client.h"
#include "client/control_client.h"

namespace ftb::cli {

// ControlClient::connect(globals.agent), with Curve when globals.curve says so.
Result<ControlClient> connectControl(const GlobalOptions& globals);

// Asks the agent for its status first: the SDK is built to wait out an agent
// restart, so on a dead endpoint it would only give up after connect_timeout,
// while the control API reports "nothing is listening" at once. Then connects
// the SDK with globals' endpoint, timeouts and Curve keys filled in.
Result<std::unique_ptr<Client>> connectClient(const GlobalOptions& globals, ClientOptions options);

}  // namespace ftb::cli
