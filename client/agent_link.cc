#include "client/agent_link.h"

#include <sys/un.h>

namespace ftb {

Result<std::unique_ptr<AgentLink>> AgentLink::create(const std::string& endpoint,
                                                     zmq::context_t& context,
                                                     const CurveClientKeys& curve) {
  constexpr std::string_view kUnix = "unix://";
  if (endpoint.rfind(kUnix, 0) == 0) {
    const std::string path = endpoint.substr(kUnix.size());
    if (path.empty() || path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      return invalidArgument("cannot connect to " + endpoint + ": the socket path must have 1 to " +
                             std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " characters");
    }
    return detail::makeStreamAgentLink(path);
  }
  try {
    return detail::makeZmqAgentLink(endpoint, context, curve);
  } catch (const zmq::error_t& e) {
    return invalidArgument("cannot connect to " + endpoint + ": " + e.what());
  }
}

}  // namespace ftb
