#include "agent/tcp_connection_limit.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

namespace ftb::agent {
namespace {

// The port of a socket address, 0 for one that is not IPv4 or IPv6.
uint16_t portOf(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  return 0;
}

// "ADDRESS:PORT" of the peer of `fd`, "?" when it has none.
std::string peerOf(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char text[INET6_ADDRSTRLEN] = "?";
  const void* raw = address.ss_family == AF_INET
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(address).sin_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(address).sin6_addr);
  ::inet_ntop(address.ss_family, raw, text, sizeof text);
  return std::string(text) + ":" + std::to_string(portOf(address));
}

}  // namespace

Result<TcpConnectionLimit> TcpConnectionLimit::watch(ZmqContext& context, ZmqSocket& socket,
                                                     std::size_t limit) {
  Result<ZmqMonitor> monitor =
      ZmqMonitor::watch(context, socket, {ZmqLinkEvent::kAccepted, ZmqLinkEvent::kDisconnected});
  if (!monitor.ok()) {
    return internalError("cannot watch the TCP endpoint's connections: " + monitor.status().message());
  }
  TcpConnectionLimit watched;
  watched.monitor_ = std::move(monitor).value();
  watched.limit_ = limit;
  return watched;
}

void TcpConnectionLimit::addListener(const std::string& endpoint) {
  const std::size_t colon = endpoint.rfind(':');
  if (!endpoint.starts_with("tcp://") || colon == std::string::npos) return;
  ports_.push_back(static_cast<uint16_t>(std::strtoul(endpoint.c_str() + colon + 1, nullptr, 10)));
}

void TcpConnectionLimit::poll() {
  while (std::optional<ZmqMonitorEvent> event = monitor_.next()) {
    if (!event->endpoint.starts_with("tcp://")) continue;  // an IPC endpoint's
    const int fd = static_cast<int>(event->value);
    if (event->kind == ZmqLinkEvent::kDisconnected) {
      open_.erase(fd);
      continue;
    }
    if (event->kind != ZmqLinkEvent::kAccepted) continue;
    open_.insert(fd);
    if (limit_ == 0 || open_.size() <= limit_) continue;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_scan_ >= std::chrono::seconds(1)) {
      open_ = findOurConnections();
      last_scan_ = now;
      if (open_.size() <= limit_) continue;
    }
    refuse(fd, event->endpoint);
  }
}

bool TcpConnectionLimit::isOurConnection(int fd) const {
  struct stat about {};
  if (fd < 0 || ::fstat(fd, &about) != 0 || !S_ISSOCK(about.st_mode)) return false;
  int listening = 1;
  socklen_t size = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening != 0) return false;
  sockaddr_storage local{}, peer{};
  socklen_t length = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return false;
  const uint16_t port = portOf(local);
  if (port == 0 || std::find(ports_.begin(), ports_.end(), port) == ports_.end()) return false;
  length = sizeof peer;
  return ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) == 0;
}

std::unordered_set<int> TcpConnectionLimit::findOurConnections() const {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return open_;
  std::unordered_set<int> found;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && isOurConnection(static_cast<int>(fd))) {
      found.insert(static_cast<int>(fd));
    }
  }
  ::closedir(dir);
  return found;
}

void TcpConnectionLimit::refuse(int fd, const std::string& endpoint) {
  if (!isOurConnection(fd)) return;  // closed meanwhile, its descriptor reused
  const std::string peer = peerOf(fd);
  ::shutdown(fd, SHUT_RDWR);
  ++refused_;
  log_.warn("tcp-connections",
            "{}: refused a connection from {}: the agent holds its limit of {} TCP connections "
            "(max-tcp-connections, at most an eighth of the descriptor limit; {} refused so far)",
            endpoint, peer, limit_, refused_);
}

}  // namespace ftb::agent
