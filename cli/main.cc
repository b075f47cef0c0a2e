// ftbctl: the operators' tool for ftb. This file only wires the global options
// to the subcommands; each subcommand lives in its own <name>_command.cc.
#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "cli/command.h"
#include "cli/curve_options.h"
#include "cli/duration_option.h"
#include "cli/typo_check.h"
#include "client/client.h"
#include "client/control_client.h"
#include "client/wire/codec.h"

int main(int argc, char** argv) {
  using namespace ftb::cli;
  using namespace std::chrono_literals;
  GlobalOptions globals;
  globals.agent = ftb::defaultAgentEndpoint();

  CLI::App app{
      "ftbctl: inspect and drive the ftb fault tolerance backplane through the local\n"
      "ftb-agent: publish and watch events, show the agent's status, clients and history,\n"
      "and the live tree of agents.",
      "ftbctl"};
  app.footer(exitCodeHelp());
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand: ftbctl status --json
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string help = "ftbctl";
    for (const CLI::App* sub : failed->get_subcommands()) help += " " + sub->get_name();
    return "ftbctl: " + std::string(e.what()) + " (see '" + help + " --help')\n";
  });
  app.set_version_flag("--version",
                       "ftbctl " + std::string(ftb::wire::kVersion) + " (protocol " +
                           std::to_string(ftb::wire::kProtocolVersion) + ")",
                       "Print ftbctl's version and exit");
  app.add_option("--agent", globals.agent,
                 "Agent endpoint, ipc://PATH, unix://PATH or tcp://HOST:PORT "
                 "(default: $FTB_AGENT_ENDPOINT, else unix:///run/ftb/agent.stream)")
      ->capture_default_str();
  app.add_flag("--json", globals.json, "Print JSON for scripts instead of tables");
  app.add_flag("--no-headers", globals.no_headers,
               "Print tables without their header line (and tree's summary line)");
  app.add_option("--timeout-ms", globals.timeout_ms,
                 "How long to wait for the agent to accept and answer each request "
                 "(500ms, 20s, 2m; a plain number is milliseconds)")
      ->capture_default_str()
      ->transform(durationIn(PlainNumber::kMillis, 1ms, 1h))
      ->type_name("DURATION");
  app.add_option("--curve-key-file", globals.curve_key_file,
                 "CurveZMQ: this client's secret key file (ftbctl keygen; mode 600) for agents "
                 "whose TCP endpoint uses Curve (docs/SECURITY.md)")
      ->envname("FTB_CURVE_KEY_FILE");
  app.add_option("--curve-server-key", globals.curve_server_key,
                 "CurveZMQ: the agents' public key, as 40 Z85 characters or a file holding it "
                 "(default: the public key of --curve-key-file, for a cluster sharing one pair)")
      ->envname("FTB_CURVE_SERVER_KEY");

  const std::vector<Command> commands = {
      addPublishCommand(app, globals), addWatchCommand(app, globals),
      addStatusCommand(app, globals),  addClientsCommand(app, globals),
      addHistoryCommand(app, globals), addTreeCommand(app, globals),
      addKeygenCommand(app, globals),
  };
  for (const Command& c : commands) {
    c.app->footer(
        "Global options (--agent, --json, --no-headers, --timeout-ms, --curve-key-file, "
        "--curve-server-key) go before or after the subcommand (see 'ftbctl --help').\n\n" +
        exitCodeHelp());
  }

  const std::vector<std::string> args(argv + 1, argv + argc);
  if (const std::string unknown = findUnknownWord(app, args); !unknown.empty()) {
    std::cerr << unknown << std::endl;
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  const bool keygen = app.got_subcommand("keygen");  // needs no agent and no keys
  // Also when the endpoint came from $FTB_AGENT_ENDPOINT rather than --agent.
  if (ftb::Status s = ftb::ControlClient::checkEndpoint(globals.agent); !s.ok() && !keygen) {
    return fail("", kExitUsage, "--agent: " + s.message() + " (or set FTB_AGENT_ENDPOINT)");
  }
  if (!keygen) {
    auto curve = resolveCurveKeys(globals.curve_key_file, globals.curve_server_key);
    if (!curve.ok()) {
      const bool contradicting = curve.status().code() == ftb::Code::kInvalidArgument;
      return fail("", contradicting ? kExitUsage : kExitLocal, curve.status().message());
    }
    globals.curve = *curve;
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return kExitUsage;  // unreachable: require_subcommand(1)
}
