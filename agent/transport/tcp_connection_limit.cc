#include "agent/transport/tcp_connection_limit.h"

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

// The remote address of `fd`, "" when it has none.
std::string hostOf(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
  char text[INET6_ADDRSTRLEN] = "";
  const void* raw = address.ss_family == AF_INET
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(address).sin_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(address).sin6_addr);
  if (::inet_ntop(address.ss_family, raw, text, sizeof text) == nullptr) return "";
  return text;
}

}  // namespace

Result<TcpConnectionLimit> TcpConnectionLimit::watch(ZmqContext& context, ZmqSocket& socket,
                                                     Limits limits) {
  Result<ZmqMonitor> monitor =
      ZmqMonitor::watch(context, socket, {ZmqLinkEvent::kAccepted, ZmqLinkEvent::kDisconnected});
  if (!monitor.ok()) {
    return internalError("cannot watch the TCP endpoint's connections: " + monitor.status().message());
  }
  TcpConnectionLimit watched;
  watched.monitor_ = std::move(monitor).value();
  watched.limits_ = limits;
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
    forget(fd);  // closed, or (accepted) a descriptor reused before its close was read
    if (event->kind != ZmqLinkEvent::kAccepted) continue;
    std::string host = hostOf(fd);
    remember(fd, host);
    if (const std::string why = overLimit(host); !why.empty()) refuse(fd, event->endpoint, why);
  }
}

void TcpConnectionLimit::remember(int fd, std::string host) {
  ++per_host_[host];
  open_[fd] = std::move(host);
}

void TcpConnectionLimit::forget(int fd) {
  const auto it = open_.find(fd);
  if (it == open_.end()) return;
  const auto count = per_host_.find(it->second);
  if (count != per_host_.end() && --count->second == 0) per_host_.erase(count);
  open_.erase(it);
}

std::string TcpConnectionLimit::overLimit(const std::string& host) {
  auto over = [&] {
    if (limits_.total > 0 && open_.size() > limits_.total) {
      return "the agent holds its limit of " + std::to_string(limits_.total) +
             " TCP connections (max-tcp-connections, at most an eighth of the descriptor limit)";
    }
    const auto held = per_host_.find(host);
    if (limits_.per_host > 0 && held != per_host_.end() && held->second > limits_.per_host) {
      return host + " holds " + std::to_string(limits_.per_host) +
             " TCP connections, max-tcp-connections-per-host";
    }
    return std::string();
  };
  if (over().empty()) return "";
  // Confirmed by the descriptors themselves, should libzmq have closed one untold.
  const auto now = std::chrono::steady_clock::now();
  if (now - last_scan_ >= std::chrono::seconds(1)) {
    last_scan_ = now;
    rescan();
  }
  return over();
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

void TcpConnectionLimit::rescan() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  open_.clear();
  per_host_.clear();
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && isOurConnection(static_cast<int>(fd))) {
      remember(static_cast<int>(fd), hostOf(static_cast<int>(fd)));
    }
  }
  ::closedir(dir);
}

void TcpConnectionLimit::refuse(int fd, const std::string& endpoint, const std::string& why) {
  if (!isOurConnection(fd)) return;  // closed meanwhile, its descriptor reused
  const std::string peer = hostOf(fd);
  ::shutdown(fd, SHUT_RDWR);
  ++refused_;
  log_.warn("tcp-connections", "{}: refused a connection from {}: {} ({} refused so far)", endpoint, peer,
            why, refused_);
}

}  // namespace ftb::agent
