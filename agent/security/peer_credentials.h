// Who is on the other end of a client's socket, as the kernel reports it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ftb::agent {

struct PeerCredentials {
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t pid = 0;
};

// libzmq appends SO_PEERCRED as ":uid:gid:pid" to the "Peer-Address" property of
// messages received over IPC; TCP peers carry only an address (nullopt).
std::optional<PeerCredentials> parsePeerAddress(std::string_view peer_address);

}  // namespace ftb::agent
