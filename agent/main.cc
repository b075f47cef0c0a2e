// ftb-agent: parse configuration, start the agent; SIGHUP reloads the
// configuration, SIGINT/SIGTERM stop it (after draining queued events).
#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/agent_command_line.h"

namespace {
ftb::agent::Agent* g_agent = nullptr;
void onStopSignal(int) {
  if (g_agent != nullptr) g_agent->requestStop();
}
void onReloadSignal(int) {
  if (g_agent != nullptr) g_agent->requestReload();
}
}  // namespace

int main(int argc, char** argv) {
  ftb::agent::AgentConfig config;
  auto app = ftb::agent::makeAgentCommandLine(config);
  CLI11_PARSE(*app, argc, argv);

  spdlog::set_level(spdlog::level::from_str(config.log_level));
  auto agent = ftb::agent::Agent::create(config);
  if (!agent.ok()) {
    std::cerr << "ftb-agent: " << agent.status().message() << "\n";
    return 2;
  }
  // A reload parses the same command line again, and so the --config file as it is now.
  const std::vector<std::string> args(argv + 1, argv + argc);
  (*agent)->setConfigReloader([args] { return ftb::agent::parseAgentCommandLine(args); });
  g_agent = agent->get();
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  std::signal(SIGHUP, onReloadSignal);
  (*agent)->run();
  g_agent = nullptr;
  return 0;
}
