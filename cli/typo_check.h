// Unknown subcommands and options, caught before CLI11 parses, so that the
// operator hears what was not understood and the likely intended word:
//   ftbctl: unknown command 'stauts'; did you mean 'status'? (see 'ftbctl --help')
//   ftbctl watch: unknown option '--fitler'; did you mean '--filter'? (see 'ftbctl watch --help')
// (CLI11 alone says that a subcommand is required, or that an argument was not
// expected.)
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ftb::cli {

// The first unknown command or option word in `args` (argv without argv[0]),
// as one error line (without the "ftbctl" prefix's trailing newline), or "".
// Values of options that take one are skipped; global options are known
// before and after the subcommand (ftbctl's app uses fallthrough).
std::string findUnknownWord(CLI::App& app, const std::vector<std::string>& args);

}  // namespace ftb::cli
