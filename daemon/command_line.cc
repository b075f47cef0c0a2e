#include "daemon/command_line.h"

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "daemon/daemon_logging.h"

namespace ftb::daemon {

std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv, std::string_view program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    for (char& c : message) {
      if (c == '\n') c = ' ';
    }
    reportStartupError(program, "configuration refused: " + message);
    return 2;
  }
  return std::nullopt;
}

void addCheckConfigFlag(CLI::App& app, bool& check_only) {
  app.add_flag("--check-config", check_only,
               "Check the configuration (flags, --config file and the files it names) as a start "
               "would, print 'configuration OK' or the first problem, and exit (0 or 2)")
      ->configurable(false);
}

int configurationOk(std::string_view program) {
  std::cout << program << ": configuration OK" << std::endl;
  return 0;
}

}  // namespace ftb::daemon
