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

#include "client/status.h"

namespace CLI {
class App;
}

namespace ftb::cli {

struct GlobalOptions {
  std::string agent;      // --agent; defaults to ftb::defaultAgentEndpoint()
  bool json = false;      // --json
  int timeout_ms = 2000;  // --timeout-ms: connecting to and each request of the agent

  std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(timeout_ms); }
};

enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,           // bad option or value
  kExitUnreachable = 2,     // no agent answered at --agent within --timeout-ms
  kExitRejected = 3,        // the agent refused the request (invalid filter, name ...)
  kExitWatchTimeout = 4,    // watch --timeout ran out first
  kExitTreeIncomplete = 5,  // tree: some agents did not answer, or they disagree
};

// For --help and docs/FTBCTL.md.
inline constexpr std::string_view kExitCodeHelp =
    "Exit codes:\n"
    "  0  success (watch: --count events arrived, or it was stopped by SIGINT/SIGTERM)\n"
    "  1  usage error: a bad option or value\n"
    "  2  agent unreachable: nothing answered at --agent within --timeout-ms\n"
    "  3  rejected by the agent: invalid filter, event space or name, payload too large ...\n"
    "  4  watch: --timeout ran out before --count events arrived\n"
    "  5  tree: the tree is shown, but some agents did not answer or the agents disagree\n"
    "     about it (a child that does not name its parent, a cycle, more than one root)\n";

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
