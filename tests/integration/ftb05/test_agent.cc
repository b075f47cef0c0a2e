#include "tests/integration/ftb05/test_agent.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "tests/support/agent_process.h"

namespace {

std::unique_ptr<ftb::testing::AgentProcess>& agent() {
  static std::unique_ptr<ftb::testing::AgentProcess> instance;
  return instance;
}

int tcpPort() {
  if (!agent()) return -1;
  const std::string& endpoint = agent()->tcpEndpoint();
  return std::atoi(endpoint.substr(endpoint.rfind(':') + 1).c_str());
}

// Keeps the returned C string alive.
std::string& ipcEndpoint() {
  static std::string endpoint;
  return endpoint;
}

}  // namespace

extern "C" int ftb05_test_agent_start(void) {
  try {
    agent() = std::make_unique<ftb::testing::AgentProcess>();
    ipcEndpoint() = agent()->ipcEndpoint();
    setenv("FTB_AGENT_ENDPOINT", ipcEndpoint().c_str(), 1);
    // The agent dies with this process even if a test forgets to stop it.
    std::atexit([] { agent().reset(); });
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot start ftb-agent: %s\n", e.what());
    return -1;
  }
}

extern "C" const char* ftb05_test_agent_ipc_endpoint(void) { return ipcEndpoint().c_str(); }

extern "C" int ftb05_test_agent_tcp_port(void) { return tcpPort(); }

extern "C" pid_t ftb05_test_agent_pid(void) { return agent() ? agent()->pid() : -1; }

extern "C" void ftb05_test_agent_stop(void) { agent().reset(); }
