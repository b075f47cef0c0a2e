#include "client/transport/agent_link.h"

#include "client/transport/unix_endpoint.h"

namespace ftb {

Result<std::unique_ptr<AgentLink>> AgentLink::create(const std::string& endpoint,
                                                     const CurveClientKeys& curve) {
  if (isUnixEndpoint(endpoint)) {
    Result<sockaddr_un> address = unixSocketAddress(endpoint);
    if (!address.ok()) return invalidArgument("cannot connect to " + address.status().message());
    return detail::makeStreamAgentLink(*address);
  }
  return detail::makeZmqAgentLink(endpoint, curve);
}

}  // namespace ftb
