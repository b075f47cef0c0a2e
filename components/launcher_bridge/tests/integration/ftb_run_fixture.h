// What every ftb-run integration test sets up: a real agent, a test directory,
// the environment that points ftb-run and the ranks at that agent, and Open
// MPI's settings for this machine; then ftb-run started with its own state
// directory and log, and waited for.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "client/event.h"
#include "tests/support/agent_process.h"

namespace ftb::launcher::testing {

class FtbRunFixture {
 public:
  FtbRunFixture();  // sets FTB_AGENT_ENDPOINT and OMPI_MCA_* for this process and its children

  // `ftb-run --state-dir <dir>/state args...`, its output in <dir>/<log>.
  pid_t start(const std::vector<std::string>& args, const std::string& log) const;
  // Its exit code, or nothing if it still runs after `timeout_ms`.
  std::optional<int> waitExit(pid_t pid, int timeout_ms) const;
  std::string log(const std::string& name) const;  // the text of <dir>/<name>

  ftb::testing::AgentProcess agent;
  ftb::testing::TempDir dir;
};

std::string tag(const Event& event, const std::string& key);  // "" when absent

}  // namespace ftb::launcher::testing
