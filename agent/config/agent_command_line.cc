#include "agent/config/agent_command_line.h"

#include <algorithm>

#include <CLI/CLI.hpp>

namespace ftb::agent {

std::unique_ptr<CLI::App> makeAgentCommandLine(AgentConfig& config) {
  auto app = std::make_unique<CLI::App>(
      "ftb-agent: the fault tolerance backplane daemon, one per node.\n"
      "Routes namespaced, severity-tagged events from publishers to every subscriber\n"
      "whose filter matches. Runs with embedded defaults; every option can also be\n"
      "set in the file given by --config (key = value, same names without dashes).\n"
      "SIGHUP re-reads the configuration and applies the settings marked 'a reload\n"
      "applies it'; a changed setting that takes effect at restart keeps its running\n"
      "value and the reload names it in the log and the service status;\n"
      "SIGTERM stops after flushing queued events to their next hop.",
      "ftb-agent");
  app->set_config("--config", "", "Read options from this file (INI/TOML key = value)");
  app->set_version_flag("--version", "ftb-agent 0.1.0");
  addAgentOptions(*app, config);
  return app;
}

Result<AgentConfig> parseAgentCommandLine(const std::vector<std::string>& args) {
  AgentConfig config;
  auto app = makeAgentCommandLine(config);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them back to front
  try {
    app->parse(reversed);
  } catch (const CLI::ParseError& e) {
    return invalidArgument(e.what());
  }
  return config;
}

}  // namespace ftb::agent
