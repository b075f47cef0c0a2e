// ftbctl's exit codes: what each means (shown by --help; docs/FTBCTL.md has the
// same table), and which one a failed call gets.
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/command.h"

namespace ftb::cli {
namespace {

const std::vector<std::pair<ExitCode, std::string_view>> kMeanings = {
    {kExitOk, "success (watch: --count events arrived, or it was stopped by SIGINT/SIGTERM)"},
    {kExitUsage, "usage error: an unknown command or option, or a bad value"},
    {kExitUnreachable, "agent unreachable: nothing answered at --agent within --timeout-ms"},
    {kExitRejected,
     "rejected by the agent: invalid filter, event space or name, payload too large,\n"
     "     a Curve key it does not authorize ..."},
    {kExitWatchTimeout, "watch: --timeout ran out before --count events arrived"},
    {kExitTreeIncomplete,
     "tree: the tree is shown, but some agents did not answer or the agents disagree\n"
     "     about it (a child that does not name its parent, a cycle, more than one root)"},
    {kExitLocal,
     "local error: a file on this machine could not be read or written (keygen's key\n"
     "     files, --curve-key-file), nothing was asked of the agent"},
};

}  // namespace

std::string exitCodeHelp() {
  std::string text = "Exit codes:\n";
  for (const auto& [code, meaning] : kMeanings) {
    text += "  " + std::to_string(code) + "  " + std::string(meaning) + "\n";
  }
  return text;
}

ExitCode exitCodeFor(const Status& status) {
  switch (status.code()) {
    case Code::kOk: return kExitOk;
    case Code::kUnavailable:
    case Code::kDeadlineExceeded:
    case Code::kInternal: return kExitUnreachable;
    default: return kExitRejected;
  }
}

int fail(std::string_view command, ExitCode code, std::string_view message) {
  std::string line =
      "ftbctl" + (command.empty() ? "" : " " + std::string(command)) + ": " + std::string(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';  // one line, whatever the agent sent
  }
  std::cout.flush();
  std::cerr << line << std::endl;
  return code;
}

int fail(std::string_view command, const Status& status) {
  return fail(command, exitCodeFor(status), status.message());
}

}  // namespace ftb::cli
