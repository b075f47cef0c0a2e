// ftbctl: the operators' tool for ftb. This file only wires the global options
// to the subcommands; each subcommand lives in its own <name>_command.cc.
#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "cli/command.h"
#include "client/client.h"
#include "client/control_client.h"

int main(int argc, char** argv) {
  using namespace ftb::cli;
  GlobalOptions globals;
  globals.agent = ftb::defaultAgentEndpoint();

  CLI::App app{
      "ftbctl: inspect and drive the ftb fault tolerance backplane through the local\n"
      "ftb-agent: publish and watch events, show the agent's status, clients and history,\n"
      "and the live tree of agents.",
      "ftbctl"};
  app.footer(std::string(kExitCodeHelp));
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand: ftbctl status --json
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string help = "ftbctl";
    for (const CLI::App* sub : failed->get_subcommands()) help += " " + sub->get_name();
    return "ftbctl: " + std::string(e.what()) + " (see '" + help + " --help')\n";
  });
  app.add_option("--agent", globals.agent,
                 "Agent endpoint, ipc://PATH or tcp://HOST:PORT "
                 "(default: $FTB_AGENT_ENDPOINT, else ipc:///run/ftb/agent.sock)")
      ->capture_default_str();
  app.add_flag("--json", globals.json, "Print JSON for scripts instead of tables");
  app.add_option("--timeout-ms", globals.timeout_ms,
                 "How long to wait for the agent to accept and answer each request")
      ->capture_default_str()
      ->check(CLI::Range(1, 3'600'000));

  const std::vector<Command> commands = {
      addPublishCommand(app, globals), addWatchCommand(app, globals),
      addStatusCommand(app, globals),  addClientsCommand(app, globals),
      addHistoryCommand(app, globals), addTreeCommand(app, globals),
      addKeygenCommand(app, globals),
  };
  for (const Command& c : commands) {
    c.app->footer(
        "Global options --agent, --json and --timeout-ms go before or after the subcommand "
        "(see 'ftbctl --help').\n\n" +
        std::string(kExitCodeHelp));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  // Also when the endpoint came from $FTB_AGENT_ENDPOINT rather than --agent.
  if (ftb::Status s = ftb::ControlClient::checkEndpoint(globals.agent);
      !s.ok() && !commands.back().app->parsed()) {  // keygen needs no agent
    return fail("", kExitUsage, "--agent: " + s.message() + " (or set FTB_AGENT_ENDPOINT)");
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return kExitUsage;  // unreachable: require_subcommand(1)
}
