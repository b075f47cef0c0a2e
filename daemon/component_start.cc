#include "daemon/component_start.h"

namespace ftb::daemon {

sigset_t blockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

Result<std::unique_ptr<Client>> connectAndDeclare(const ClientOptions& options,
                                                  const std::vector<EventDeclaration>& events) {
  auto client = Client::connect(options);
  if (!client.ok()) {
    return Status(client.status().code(), "cannot reach the ftb-agent: " + client.status().toString());
  }
  if (Status s = (*client)->declare(events); !s.ok()) {
    return Status(s.code(), "declaring events: " + s.toString());
  }
  return std::move(*client);
}

}  // namespace ftb::daemon
