// The first steps every component daemon (ftb-ipmi, ftb-ib) takes, in one
// place: stop signals kept for the daemon's own wait, then a client connected
// to the local agent with the daemon's events declared.
#pragma once

#include <signal.h>

#include <memory>
#include <vector>

#include "client/client.h"

namespace ftb::daemon {

// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts
// later, so they reach only the daemon's signalfd or sigtimedwait().
sigset_t blockStopSignals();

// Connects and declares; the error says which of the two failed and why.
Result<std::unique_ptr<Client>> connectAndDeclare(const ClientOptions& options,
                                                  const std::vector<EventDeclaration>& events);

}  // namespace ftb::daemon
