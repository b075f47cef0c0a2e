#include "metrics/http_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "metrics/build_info.h"
#include "metrics/process_collector.h"

namespace ftb::metrics {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxRequestBytes = 8192;
// Out of descriptors (EMFILE): the pending connection stays in the backlog and
// the listening socket stays readable; it is left alone this long instead of
// being polled in a busy loop.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

std::string response(const std::string& status, const std::string& body,
                     const std::string& extra_headers = {},
                     const std::string& type = "text/plain; charset=utf-8") {
  return "HTTP/1.1 " + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra_headers +
         "Connection: close\r\n\r\n" + body;
}

std::size_t headEnd(const std::string& in) {
  const auto crlf = in.find("\r\n\r\n");
  if (crlf != std::string::npos) return crlf + 4;
  const auto lf = in.find("\n\n");
  return lf == std::string::npos ? std::string::npos : lf + 2;
}

}  // namespace

struct HttpServer::Connection {
  int fd;
  Clock::time_point deadline;
  std::string in;
  std::string out;       // the whole response, once the request head is in
  std::size_t sent = 0;
  bool done = false;     // to be closed
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(
    const std::string& listen, std::shared_ptr<const prometheus::Collectable> metrics,
    HttpServerOptions options) {
  auto socket = ListeningSocket::open(listen);
  if (!socket.ok()) return socket.status();
  const int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) return internalError("cannot serve metrics: eventfd failed");
  return std::unique_ptr<HttpServer>(
      new HttpServer(std::move(socket).value(), wake, std::move(metrics), options));
}

Result<std::unique_ptr<HttpServer>> HttpServer::startIfSet(
    const std::string& listen, std::shared_ptr<const prometheus::Collectable> metrics,
    HttpServerOptions options) {
  if (listen.empty()) return std::unique_ptr<HttpServer>();
  return start(listen, std::move(metrics), options);
}

HttpServer::HttpServer(ListeningSocket socket, int wake_fd,
                       std::shared_ptr<const prometheus::Collectable> metrics,
                       HttpServerOptions options)
    : socket_(std::move(socket)), wake_fd_(wake_fd), address_(socket_.address()), options_(options) {
  auto standard = std::make_shared<prometheus::Registry>();
  addBuildInfo(*standard);
  if (metrics) collectables_.push_back(std::move(metrics));
  collectables_.push_back(std::move(standard));
  collectables_.push_back(std::make_shared<ProcessCollector>());
  thread_ = std::thread([this] { serve(); });
}

HttpServer::~HttpServer() {
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
  thread_.join();
  ::close(wake_fd_);
}

void HttpServer::serve() {
  std::vector<Connection> connections;
  std::vector<pollfd> fds;
  auto accept_paused_until = Clock::time_point::min();
  for (;;) {
    const bool accepting = Clock::now() >= accept_paused_until;
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({socket_.fd(), static_cast<short>(accepting ? POLLIN : 0), 0});
    auto next_deadline = accepting ? Clock::time_point::max() : accept_paused_until;
    for (const Connection& c : connections) {
      fds.push_back({c.fd, static_cast<short>(c.out.empty() ? POLLIN : POLLOUT), 0});
      next_deadline = std::min(next_deadline, c.deadline);
    }
    int timeout_ms = -1;
    if (next_deadline != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(next_deadline - Clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0) {
      if (errno == EINTR) continue;
      break;  // only with bad arguments or no memory: the endpoint stops answering
    }
    if (fds[0].revents != 0) break;  // stop
    const auto now = Clock::now();
    for (std::size_t i = 0; i < connections.size(); ++i) {
      Connection& c = connections[i];
      const short ev = fds[i + 2].revents;
      if (ev & POLLIN) onReadable(c);
      else if (ev & POLLOUT) onWritable(c);
      else if (ev & (POLLERR | POLLHUP | POLLNVAL)) c.done = true;
      if (now >= c.deadline) c.done = true;  // too slow to ask or to take the answer
    }
    std::erase_if(connections, [](const Connection& c) {
      if (c.done) ::close(c.fd);
      return c.done;
    });
    if ((fds[1].revents & POLLIN) && !acceptAll(connections)) {
      accept_paused_until = Clock::now() + kAcceptPause;
    }
  }
  for (const Connection& c : connections) ::close(c.fd);
}

bool HttpServer::acceptAll(std::vector<Connection>& connections) {
  for (;;) {
    const int fd = ::accept4(socket_.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;  // false: out of descriptors or memory
    }
    if (connections.size() >= options_.max_connections) {
      // The oldest connection (first in the list) makes room: a crowd of idle
      // connections cannot keep a scraper out.
      ::close(connections.front().fd);
      connections.erase(connections.begin());
    }
    connections.push_back({.fd = fd, .deadline = Clock::now() + options_.request_timeout});
  }
}

void HttpServer::onReadable(Connection& c) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c.in.append(buf, static_cast<std::size_t>(n));
      if (c.in.size() > kMaxRequestBytes) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    c.done = true;  // closed (or failed) before the request was complete
    return;
  }
  const std::size_t end = headEnd(c.in);
  if (end != std::string::npos) {
    c.out = respond(c.in.substr(0, end));
  } else if (c.in.size() > kMaxRequestBytes) {
    c.out = response("431 Request Header Fields Too Large", "request head too large\n");
  } else {
    return;  // wait for the rest of the head
  }
  onWritable(c);
}

void HttpServer::onWritable(Connection& c) {
  while (c.sent < c.out.size()) {
    const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n > 0) {
      c.sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // the rest when it drains
    c.done = true;  // the client went away
    return;
  }
  ::shutdown(c.fd, SHUT_WR);
  c.done = true;
}

std::string HttpServer::respond(const std::string& head) {
  const std::string line = head.substr(0, head.find_first_of("\r\n"));
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0) {
    return response("400 Bad Request", "expected a request line like 'GET /metrics HTTP/1.1'\n");
  }
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if (method != "GET" && method != "HEAD") {
    return response("405 Method Not Allowed", "use GET /metrics\n", "Allow: GET, HEAD\r\n");
  }
  if (target != "/metrics") return response("404 Not Found", "metrics are at /metrics\n");
  scrapes_.fetch_add(1);
  std::string reply = response("200 OK", render(), {}, "text/plain; version=0.0.4; charset=utf-8");
  if (method == "HEAD") reply.resize(reply.find("\r\n\r\n") + 4);
  return reply;
}

std::string HttpServer::render() const {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& c : collectables_) {
    auto more = c->Collect();
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace ftb::metrics
