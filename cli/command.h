// What every ftbctl subcommand shares: the global options, the exit codes, and
// how a subcommand plugs into main.cc (the switchboard).
//
// Each subcommand lives in its own <name>_command.cc: add<Name>Command registers
// its CLI11 subcommand and options on the app and returns the function main runs
// when that subcommand was chosen. Commands print results to stdout (a table, or
// JSON with --json) and failures to stderr as one line saying what to do next.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "client/control_client.h"
#include "client/status.h"

namespace CLI {
class App;
}

namespace ftb::cli {

struct GlobalOptions {
  std::string agent;        // --agent; defaults to ftb::defaultAgentEndpoint()
  bool json = false;        // --json
  bool no_headers = false;  // --no-headers: tables without their header (and summary) lines
  int timeout_ms = 2000;    // --timeout-ms: connecting to and each request of the agent
  // --curve-key-file / --curve-server-key as given (or $FTB_CURVE_KEY_FILE,
  // $FTB_CURVE_SERVER_KEY); main resolves them into `curve` before a command runs.
  std::string curve_key_file;
  std::string curve_server_key;
  CurveClientKeys curve;  // used for every tcp:// agent ftbctl talks to

  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(timeout_ms); }
};

// The one list of ftbctl's exit codes; exit_codes.cc says what each means
// (--help) and docs/FTBCTL.md repeats it.
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,           // bad option or value, unknown command
  kExitUnreachable = 2,     // no agent answered at --agent within --timeout-ms
  kExitRejected = 3,        // the agent refused the request (invalid filter, name, Curve key ...)
  kExitWatchTimeout = 4,    // watch --timeout ran out first
  kExitTreeIncomplete = 5,  // tree: some agents did not answer, or they disagree
  kExitLocal = 6,           // a local file could not be read or written (key files)
};

// "Exit codes:" and one line per code, for --help.
std::string exitCodeHelp();

// The exit code for a failed call: unavailable/deadline -> 2, internal -> 2,
// anything the agent (or the SDK's identical local check) refused -> 3.
ExitCode exitCodeFor(const Status& status);

// Prints "ftbctl <command>: <message>" as one line on stderr; returns `code`.
int fail(std::string_view command, ExitCode code, std::string_view message);
// The same with the status's message and exitCodeFor(status).
int fail(std::string_view command, const Status& status);

struct Command {
  CLI::App* app = nullptr;   // the subcommand; main checks which one was parsed
  std::function<int()> run;  // returns the process exit code
};

Command addPublishCommand(CLI::App& app, const GlobalOptions& globals);
Command addWatchCommand(CLI::App& app, const GlobalOptions& globals);
Command addStatusCommand(CLI::App& app, const GlobalOptions& globals);
Command addClientsCommand(CLI::App& app, const GlobalOptions& globals);
Command addHistoryCommand(CLI::App& app, const GlobalOptions& globals);
Command addTreeCommand(CLI::App& app, const GlobalOptions& globals);
Command addKeygenCommand(CLI::App& app, const GlobalOptions& globals);

}  // namespace ftb::cli
