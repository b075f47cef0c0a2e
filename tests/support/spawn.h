// Test support: programs as child processes, and free loopback ports.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ftb::testing {

// Starts args[0] (a path) with stdin from /dev/null and stdout + stderr
// appended to `log_path`. With `ignore_sigpipe` the child starts with SIGPIPE
// ignored (the disposition survives exec). Throws when fork fails.
pid_t spawn(std::vector<std::string> args, const std::string& log_path, bool ignore_sigpipe = false);

// A loopback port free for both UDP and TCP now.
int freePort();

}  // namespace ftb::testing
