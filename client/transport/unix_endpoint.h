// unix://PATH endpoints: the agent's own Unix stream socket (local clients).
// One place for the form and its limit, shared by the agent (which listens),
// the SDK and the control client (which connect) and the config check.
#pragma once

#include <sys/un.h>

#include <string_view>

#include "client/status.h"

namespace ftb {

inline constexpr std::string_view kUnixScheme = "unix://";

// Where a node's agent serves local clients unless configured otherwise; the
// SDK's kDefaultAgentEndpoint (client.h, an installed header) is the same.
inline constexpr std::string_view kDefaultLocalAgentEndpoint = "unix:///run/ftb/agent.stream";

inline bool isUnixEndpoint(std::string_view endpoint) { return endpoint.starts_with(kUnixScheme); }

// The socket address of a unix://PATH endpoint; kInvalidArgument, naming the
// endpoint, for another scheme or a path that is empty or longer than a Unix
// socket address holds (107 bytes).
Result<sockaddr_un> unixSocketAddress(std::string_view endpoint);

}  // namespace ftb
