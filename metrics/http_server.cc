#include "metrics/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ftb::metrics {
namespace {

constexpr int kPollMs = 100;             // how soon the thread notices stop
constexpr auto kRequestTimeout = std::chrono::seconds(1);
constexpr std::size_t kMaxRequestBytes = 8192;

void writeAll(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the scraper went away
    off += static_cast<std::size_t>(n);
  }
}

std::string response(const std::string& status, const std::string& type, const std::string& body) {
  return "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& listen,
                                                      const Registry& registry) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) {
    return invalidArgument("metrics address '" + listen + "' is not host:port (e.g. 127.0.0.1:9810)");
  }
  const std::string host = listen.substr(0, colon), port = listen.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return invalidArgument("metrics address '" + listen + "': " + gai_strerror(rc));
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const bool bound = fd >= 0 && ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                     ::listen(fd, 16) == 0;
  const int err = errno;
  freeaddrinfo(found);
  if (!bound) {
    if (fd >= 0) ::close(fd);
    return failedPrecondition("cannot serve metrics on " + listen + ": " + std::strerror(err) +
                              " (choose another address)");
  }
  sockaddr_in actual{};
  socklen_t len = sizeof(actual);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&actual), &len);
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &actual.sin_addr, ip, sizeof(ip));
  const std::string address = std::string(ip) + ":" + std::to_string(ntohs(actual.sin_port));
  return std::unique_ptr<HttpServer>(new HttpServer(fd, address, registry));
}

Result<std::unique_ptr<HttpServer>> HttpServer::startIfSet(const std::string& listen,
                                                           const Registry& registry) {
  if (listen.empty()) return std::unique_ptr<HttpServer>();
  return start(listen, registry);
}

HttpServer::HttpServer(int fd, std::string address, const Registry& registry)
    : fd_(fd), address_(std::move(address)), registry_(registry), thread_([this] { serve(); }) {}

HttpServer::~HttpServer() {
  stop_.store(true);
  thread_.join();
  ::close(fd_);
}

void HttpServer::serve() {
  while (!stop_.load()) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    answer(client);
    ::close(client);
  }
}

void HttpServer::answer(int client) {
  // Read the request head (we need only its first line) within the timeout.
  std::string request;
  const auto deadline = std::chrono::steady_clock::now() + kRequestTimeout;
  while (request.find("\r\n\r\n") == std::string::npos && request.find("\n\n") == std::string::npos &&
         request.size() < kMaxRequestBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{client, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return;
    char buf[1024];
    const ssize_t n = ::recv(client, buf, sizeof(buf), 0);
    if (n <= 0) return;
    request.append(buf, static_cast<std::size_t>(n));
  }
  const std::string line = request.substr(0, request.find_first_of("\r\n"));
  const auto sp1 = line.find(' ');
  const auto sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
  const std::string method = line.substr(0, sp1);
  std::string target = sp1 == std::string::npos ? "" : line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if (method != "GET" && method != "HEAD") {
    return writeAll(client, response("405 Method Not Allowed", "text/plain", "use GET /metrics\n"));
  }
  if (target != "/metrics") {
    return writeAll(client, response("404 Not Found", "text/plain", "metrics are at /metrics\n"));
  }
  scrapes_.fetch_add(1);
  std::string reply = response("200 OK", "text/plain; version=0.0.4; charset=utf-8", registry_.render());
  if (method == "HEAD") reply.resize(reply.find("\r\n\r\n") + 4);
  writeAll(client, reply);
}

}  // namespace ftb::metrics
