#include "metrics/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ftb::metrics {
namespace {

constexpr int kBacklog = 64;
const std::string kExample = " (e.g. 127.0.0.1:9810 or [::1]:9810)";

std::string formatAddress(const sockaddr_storage& a) {
  char ip[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, ip, sizeof(ip));
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
  inet_ntop(AF_INET, &v4.sin_addr, ip, sizeof(ip));
  return std::string(ip) + ":" + std::to_string(ntohs(v4.sin_port));
}

// Binds and listens on one resolved address; errno is kept for the caller on failure.
int bindAndListen(const addrinfo& a) {
  const int fd = ::socket(a.ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  const int one = 1;
  // Lets a restarted daemon bind while old connections sit in TIME_WAIT; a
  // socket still listening on the port makes bind fail all the same.
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, a.ai_addr, a.ai_addrlen) == 0 && ::listen(fd, kBacklog) == 0) return fd;
  const int err = errno;
  ::close(fd);
  errno = err;
  return -1;
}

}  // namespace

Result<HostPort> splitHostPort(const std::string& listen) {
  const std::string quoted = "metrics address '" + listen + "'";
  HostPort hp;
  std::string rest;
  if (!listen.empty() && listen.front() == '[') {
    const auto close = listen.find(']');
    if (close == std::string::npos) return invalidArgument(quoted + ": '[' without ']'" + kExample);
    hp.host = listen.substr(1, close - 1);
    rest = listen.substr(close + 1);
    if (rest.empty() || rest.front() != ':') {
      return invalidArgument(quoted + " has no port after ']'" + kExample);
    }
    rest.erase(0, 1);
  } else {
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) return invalidArgument(quoted + " is not host:port" + kExample);
    hp.host = listen.substr(0, colon);
    if (hp.host.find(':') != std::string::npos) {
      return invalidArgument(quoted + ": put an IPv6 address in brackets, as in [::1]:9810");
    }
    rest = listen.substr(colon + 1);
  }
  if (hp.host.empty()) {
    return invalidArgument(quoted + " has no host (0.0.0.0 or [::] for every interface)" + kExample);
  }
  if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) {
    return invalidArgument(quoted + ": port '" + rest + "' is not a number" + kExample);
  }
  if (rest.size() > 5 || std::stoul(rest) > 65535) {
    return invalidArgument(quoted + ": port " + rest + " is out of range (0-65535; 0 picks a free port)");
  }
  hp.port = rest;
  return hp;
}

Result<ListeningSocket> ListeningSocket::open(const std::string& listen) {
  auto hp = splitHostPort(listen);
  if (!hp.ok()) return hp.status();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(hp->host.c_str(), hp->port.c_str(), &hints, &found); rc != 0) {
    return invalidArgument("metrics address '" + listen + "': cannot resolve '" + hp->host +
                           "': " + gai_strerror(rc));
  }
  // A name may resolve to several addresses: the first that binds serves
  // (one port for all of them cannot be promised when the port is 0).
  int fd = -1, first_error = 0;
  for (const addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = bindAndListen(*a);
    if (fd < 0 && first_error == 0) first_error = errno;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return failedPrecondition("cannot serve metrics on " + listen + ": " +
                              std::strerror(first_error) + " (choose another address)");
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  return ListeningSocket(fd, formatAddress(bound));
}

ListeningSocket::ListeningSocket(ListeningSocket&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), address_(std::move(other.address_)) {}

ListeningSocket& ListeningSocket::operator=(ListeningSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    address_ = std::move(other.address_);
  }
  return *this;
}

ListeningSocket::~ListeningSocket() {
  if (fd_ >= 0) ::close(fd_);
}

int ListeningSocket::release() { return std::exchange(fd_, -1); }

}  // namespace ftb::metrics
