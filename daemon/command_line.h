// How ftb's daemons parse their command line (CLI11, with --config files):
// --help and --version print and exit 0; a bad flag, key or value is one line
// on stderr ("<program>: configuration refused: ...", journal priority err)
// and exit status 2, as every start-up error (STYLE.md).
//
//   if (auto done = ftb::daemon::parseCommandLine(app, argc, argv, "ftb-ipmi")) return *done;
#pragma once

#include <optional>
#include <string_view>

namespace CLI {
class App;
}

namespace ftb::daemon {

// std::nullopt when the program should go on; otherwise its exit status.
std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv, std::string_view program);

// A --check-config flag that is never read from the --config file.
void addCheckConfigFlag(CLI::App& app, bool& check_only);

// The end of a --check-config run: one line "<program>: configuration OK", 0.
int configurationOk(std::string_view program);

}  // namespace ftb::daemon
