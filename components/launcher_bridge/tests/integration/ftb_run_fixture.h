// What every ftb-run integration test sets up: a real agent, a test directory,
// the environment that points ftb-run and the ranks at that agent, and Open
// MPI's settings for this machine; then ftb-run started with its own state
// directory and log, and waited for.
#pragma once

#include <sys/types.h>

#include <functional>
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
  // mpirun for ftb-run --run-through on Debian 12's Open MPI (no ULFM): drops
  // `--with-ft` and its value, puts every named host on localhost with their
  // slots summed, maps by slot instead of Open MPI 5's `--map-by
  // rankfile:file=F` (whose F it appends to <dir>/mpirun.rankfiles), and
  // appends its arguments and FTBCKPT_SPARE_NODES to <dir>/mpirun.args.
  // Returns its path.
  std::string writeRunThroughMpirun() const;

  ftb::testing::AgentProcess agent;
  ftb::testing::TempDir dir;
};

std::string tag(const Event& event, const std::string& key);  // "" when absent
// An event named `name` and, if `key` is given, with that tag's `value`.
std::function<bool(const Event&)> named(const std::string& name, const std::string& key = "",
                                        const std::string& value = "");

}  // namespace ftb::launcher::testing
