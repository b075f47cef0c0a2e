#include "client/agent_link.h"

#include "client/unix_endpoint.h"

namespace ftb {

Result<std::unique_ptr<AgentLink>> AgentLink::create(const std::string& endpoint,
                                                     zmq::context_t& context,
                                                     const CurveClientKeys& curve) {
  if (isUnixEndpoint(endpoint)) {
    Result<sockaddr_un> address = unixSocketAddress(endpoint);
    if (!address.ok()) return invalidArgument("cannot connect to " + address.status().message());
    return detail::makeStreamAgentLink(*address);
  }
  try {
    return detail::makeZmqAgentLink(endpoint, context, curve);
  } catch (const zmq::error_t& e) {
    return invalidArgument("cannot connect to " + endpoint + ": " + e.what());
  }
}

}  // namespace ftb
