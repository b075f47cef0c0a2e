// The `sender` the agent stamps on what a client publishes, on its last will,
// and on what `ftbctl clients` shows of it (docs/SECURITY.md, "Who a client
// is"): uid and pid from the kernel for a local client; for a TCP client the
// uid its Curve key is mapped to, if the authorized keys map it; never
// anything the client said.
#pragma once

#include <string>

#include "agent/security/namespace_policy.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

void stampSender(proto::VerifiedSender& out, const std::string& agent, const Principal& who);

}  // namespace ftb::agent
