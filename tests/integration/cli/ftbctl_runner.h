// Test support for ftbctl's integration tests: run the real ftbctl binary
// against an agent and pick its output apart.
#pragma once

#include <string>
#include <vector>

#include "tests/integration/cli/child_process.h"
#include "tests/support/agent_process.h"

namespace ftb::testing {

// Path of the ftbctl binary in the test's runfiles.
const std::string& ftbctl();

// ftbctl --agent ENDPOINT args...
std::vector<std::string> ftbctlCommand(const std::string& endpoint, std::vector<std::string> args);

// Runs ftbctl against the agent's IPC endpoint to completion.
ChildResult ftbctlRun(const AgentProcess& agent, std::vector<std::string> args);

// Exit code, stdout and stderr, for failure messages.
std::string describe(const ChildResult& r);

std::vector<std::string> lines(const std::string& text);

bool contains(const std::string& text, const std::string& part);

}  // namespace ftb::testing
