#include "client/transport/unix_endpoint.h"

#include <sys/socket.h>

#include <cstring>
#include <string>

namespace ftb {

Result<sockaddr_un> unixSocketAddress(std::string_view endpoint) {
  if (!isUnixEndpoint(endpoint)) {
    return invalidArgument("'" + cutForMessage(endpoint) + "' must start with unix://");
  }
  const std::string_view path = endpoint.substr(kUnixScheme.size());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return invalidArgument("agent endpoint '" + cutForMessage(endpoint) + "': a unix:// socket path has 1 to " +
                           std::to_string(sizeof(address.sun_path) - 1) + " characters, this one " +
                           std::to_string(path.size()));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

}  // namespace ftb
