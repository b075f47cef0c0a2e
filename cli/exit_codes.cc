#include <iostream>
#include <string>

#include "cli/command.h"

namespace ftb::cli {

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
