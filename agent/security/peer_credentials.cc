#include "agent/security/peer_credentials.h"

#include <charconv>

namespace ftb::agent {
namespace {

// Reads the number after the last ':' of `text` and trims it off.
std::optional<uint32_t> popField(std::string_view& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view digits = text.substr(colon + 1);
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  text = text.substr(0, colon);
  return value;
}

}  // namespace

std::optional<PeerCredentials> parsePeerAddress(std::string_view peer_address) {
  const auto pid = popField(peer_address);
  const auto gid = pid ? popField(peer_address) : std::nullopt;
  const auto uid = gid ? popField(peer_address) : std::nullopt;
  // What precedes the credentials names the peer ("localhost" for IPC); an
  // IPv6 address would contain ':' and is not credentials.
  if (!uid || peer_address.find(':') != std::string_view::npos) return std::nullopt;
  return PeerCredentials{.uid = *uid, .gid = *gid, .pid = *pid};
}

}  // namespace ftb::agent
