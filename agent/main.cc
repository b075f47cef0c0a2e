// ftb-agent: parse configuration, start the agent, stop on SIGINT/SIGTERM.
#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "agent/agent.h"

namespace {
ftb::agent::Agent* g_agent = nullptr;
void onSignal(int) {
  if (g_agent != nullptr) g_agent->requestStop();
}
}  // namespace

int main(int argc, char** argv) {
  ftb::agent::AgentConfig config;
  CLI::App app{
      "ftb-agent: the fault tolerance backplane daemon, one per node.\n"
      "Routes namespaced, severity-tagged events from publishers to every subscriber\n"
      "whose filter matches. Runs with embedded defaults; every option can also be\n"
      "set in the file given by --config (key = value, same names without dashes).",
      "ftb-agent"};
  app.set_config("--config", "", "Read options from this file (INI/TOML key = value)");
  app.set_version_flag("--version", "ftb-agent 0.1.0");
  ftb::agent::addAgentOptions(app, config);
  CLI11_PARSE(app, argc, argv);

  spdlog::set_level(spdlog::level::from_str(config.log_level));
  auto agent = ftb::agent::Agent::create(config);
  if (!agent.ok()) {
    std::cerr << "ftb-agent: " << agent.status().message() << "\n";
    return 2;
  }
  g_agent = agent->get();
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  (*agent)->run();
  g_agent = nullptr;
  return 0;
}
