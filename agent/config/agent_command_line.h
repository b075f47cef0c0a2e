// The agent's command line (every AgentConfig field as a flag, --config for a
// file of the same keys, --help, --version), built in one place so that the
// start in main.cc and the re-read on SIGHUP parse exactly the same way.
//
//   AgentConfig config;
//   auto app = makeAgentCommandLine(config);
//   CLI11_PARSE(*app, argc, argv);
//   auto again = parseAgentCommandLine(args);  // on SIGHUP: the file as it is now
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/config/config.h"
#include "client/status.h"

namespace CLI {
class App;
}

namespace ftb::agent {

// The CLI11 app that fills `config`; `config` must outlive it.
std::unique_ptr<CLI::App> makeAgentCommandLine(AgentConfig& config);

// Parses `args` (without the program name) into a fresh AgentConfig.
// kInvalidArgument with CLI11's message when a flag, a file key or a value is bad.
Result<AgentConfig> parseAgentCommandLine(const std::vector<std::string>& args);

}  // namespace ftb::agent
