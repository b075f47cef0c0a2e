// Fuzzes the agent's configuration file (--config, deploy/ftb-agent.conf),
// read exactly as at start and on SIGHUP: parseAgentCommandLine with
// "--config FILE" (agent/config/agent_command_line.h). The text goes to an in-memory
// file so no disk is touched. A bad file must come back as a Status, never
// as an exception or a crash of the agent.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "agent/config/agent_command_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("ftb-agent.conf", 0);
  if (fd < 0 || ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) {
    std::abort();  // the harness, not the parser
  }
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  (void)ftb::agent::parseAgentCommandLine({"--config", path});
  return 0;
}
