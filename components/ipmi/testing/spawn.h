// Test support: start a program as a child with stdin from /dev/null and
// stdout + stderr appended to a log file.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ftb::ipmi::testing {

// args[0] is the program's path. With `ignore_sigpipe` the child starts with
// SIGPIPE ignored (the disposition survives exec). Throws when fork fails.
pid_t spawn(std::vector<std::string> args, const std::string& log_path, bool ignore_sigpipe = false);

}  // namespace ftb::ipmi::testing
