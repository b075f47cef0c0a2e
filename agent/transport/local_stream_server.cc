#include "agent/transport/local_stream_server.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "client/transport/unix_endpoint.h"

namespace ftb::agent {
namespace {

// Routing ids of this transport: a zero byte, 'U', then 8 bytes of counter.
// ZeroMQ's own ids are 5 bytes that start with a zero byte; ids that peers
// choose may not start with one, so no ZeroMQ peer can take these.
constexpr char kIdTag[2] = {'\0', 'U'};
constexpr std::size_t kIdSize = 10;

std::string makeRoutingId(uint64_t n) {
  std::string id(kIdTag, 2);
  for (int i = 0; i < 8; ++i) id.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return id;
}

// Whether a live process accepts connections on the socket file.
bool someoneListens(const sockaddr_un& address) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool answered = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return answered;
}

}  // namespace

bool LocalStreamServer::isRoutingId(const std::string& routing_id) {
  return routing_id.size() == kIdSize && routing_id[0] == kIdTag[0] && routing_id[1] == kIdTag[1];
}

Result<std::unique_ptr<LocalStreamServer>> LocalStreamServer::listen(const std::string& endpoint,
                                                                     std::size_t max_frame_bytes,
                                                                     std::size_t backlog_frames,
                                                                     ConnectionLimits limits,
                                                                     Poller& poller) {
  Result<sockaddr_un> address = unixSocketAddress(endpoint);
  if (!address.ok()) {
    return invalidArgument("--local-endpoint " + address.status().message() + " (or none)");
  }
  const std::string path = endpoint.substr(kUnixScheme.size());
  const std::filesystem::path file(path);
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) {
    return failedPrecondition("cannot create directory " + file.parent_path().string() + " for " +
                              endpoint + ": " + ec.message() + " (choose another --local-endpoint)");
  }
  if (std::filesystem::exists(file, ec)) {
    if (someoneListens(*address)) {
      return failedPrecondition("another ftb-agent is already serving " + endpoint +
                                " (stop it or choose another --local-endpoint)");
    }
    std::filesystem::remove(file, ec);  // left by an agent that died
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return internalError(std::string("socket(AF_UNIX): ") + std::strerror(errno));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0 ||
      ::listen(fd, 256) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    return failedPrecondition("cannot listen on " + endpoint + ": " + why +
                              " (choose another --local-endpoint)");
  }
  ::chmod(path.c_str(), 0666);
  std::unique_ptr<LocalStreamServer> server(
      new LocalStreamServer(endpoint, path, fd, max_frame_bytes, backlog_frames, limits, poller));
  server->reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  Result<Poller::Registration> listening =
      poller.watch(fd, EPOLLIN, [s = server.get()](uint32_t) { s->acceptAll(); });
  if (!listening.ok()) return listening.status();  // the destructor closes and removes
  server->listening_ = std::move(listening).value();
  return server;
}

LocalStreamServer::~LocalStreamServer() {
  for (auto& [id, c] : connections_) {
    c->registration.reset();
    if (c->fd >= 0) ::close(c->fd);
  }
  listening_.reset();
  ::close(listen_fd_);
  if (reserve_fd_ >= 0) ::close(reserve_fd_);
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

void LocalStreamServer::onReady(Connection& c, uint32_t events) {
  if (events & EPOLLOUT) writeBacklog(c);
  // Errors and hang-ups count as readable: the read finds out which.
  if ((events & ~static_cast<uint32_t>(EPOLLOUT)) != 0 && c.fd >= 0) {
    c.readable = true;
    if (!c.queued) {
      c.queued = true;
      ready_.push_back(&c);
    }
  }
}

void LocalStreamServer::acceptAll() {
  while (true) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && shedOne(errno)) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        refusals_log_.warn("accept", "{}: accept failed: {}", endpoint_, std::strerror(errno));
      }
      return;
    }
    ucred cred{};
    socklen_t length = sizeof(cred);
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) {
      spdlog::warn("{}: a connection without peer credentials was refused: {}", endpoint_,
                   std::strerror(errno));
      ::close(fd);
      continue;
    }
    const PeerCredentials credentials{.uid = cred.uid, .gid = cred.gid, .pid = static_cast<uint32_t>(cred.pid)};
    if (const std::string why = overLimit(credentials); !why.empty()) {
      ::close(fd);
      ++refused_;
      refusals_log_.warn("limit", "{}: refused a connection of pid {} (uid {}): {} ({} refused so far)", endpoint_,
                         cred.pid, cred.uid, why, refused_);
      continue;
    }
    auto c = std::make_unique<Connection>(max_frame_);
    c->fd = fd;
    c->routing_id = makeRoutingId(next_id_++);
    c->credentials = credentials;
    c->last_frame = std::chrono::steady_clock::now();
    Connection* connection = c.get();
    Result<Poller::Registration> watched = poller_.watch(
        fd, EPOLLIN, [this, connection](uint32_t events) { onReady(*connection, events); });
    if (!watched.ok()) {
      spdlog::warn("{}: refused a connection of pid {}: {}", endpoint_, cred.pid,
                   watched.status().message());
      ::close(fd);
      continue;
    }
    c->registration = std::move(watched).value();
    // Whatever the client sent before it was watched is read at once.
    c->readable = true;
    c->queued = true;
    ready_.push_back(connection);
    ++per_uid_[credentials.uid];
    connections_.emplace(c->routing_id, std::move(c));
  }
}

bool LocalStreamServer::shedOne(int accept_errno) {
  if (reserve_fd_ < 0) return false;
  ::close(reserve_fd_);
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) ::close(fd);
  reserve_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ++refused_;
  refusals_log_.warn("descriptors",
                     "{}: out of file descriptors ({}): refused a connection ({} refused so far); raise "
                     "LimitNOFILE= or lower max-connections-per-uid (docs/SECURITY.md)",
                     endpoint_, std::strerror(accept_errno), refused_);
  return true;
}

std::string LocalStreamServer::overLimit(const PeerCredentials& credentials) const {
  if (limits_.total > 0 && connections_.size() >= limits_.total) {
    return "the agent holds " + std::to_string(connections_.size()) +
           " connections, all its descriptors allow besides its other work";
  }
  const bool exempt = credentials.uid == 0 || credentials.uid == ::geteuid();
  if (exempt || limits_.per_uid == 0) return "";
  const auto held = per_uid_.find(credentials.uid);
  if (held != per_uid_.end() && held->second >= limits_.per_uid) {
    return "uid " + std::to_string(credentials.uid) + " holds " + std::to_string(held->second) +
           " connections, max-connections-per-uid";
  }
  return "";
}

Receive LocalStreamServer::tryReceive(InboundFrame& frame) {
  while (!ready_.empty()) {
    Connection& c = *ready_.front();
    if (c.fd >= 0) {
      std::optional<std::string_view> body = c.reader.next();
      if (!body && c.readable) {
        switch (c.reader.readFrom(c.fd)) {
          case wire::StreamFrameReader::Read::kData: continue;  // look again
          case wire::StreamFrameReader::Read::kNothing: c.readable = false; break;
          case wire::StreamFrameReader::Read::kClosed:
            close(c, c.reader.errnoValue() == 0 ? "" : std::strerror(c.reader.errnoValue()));
            break;
          case wire::StreamFrameReader::Read::kTooLarge:
            spdlog::warn("{}: closed the connection of pid {} (uid {}): a frame of {} bytes, the "
                         "limit is {}", endpoint_, c.credentials.pid, c.credentials.uid,
                         c.reader.announced(), max_frame_);
            // Frames before it that were whole are handled first.
            if (c.reader.hasFrame()) continue;
            close(c, "frame too large");
            break;
        }
      }
      if (body) {
        c.last_frame = std::chrono::steady_clock::now();
        frame.routing_id = c.routing_id;
        frame.body = *body;
        frame.multipart = false;
        frame.peer_address = nullptr;
        frame.user_id = nullptr;
        frame.credentials = &c.credentials;
        return Receive::kFrame;
      }
    }
    // Read dry (or closed): it waits for the poller again.
    c.queued = false;
    ready_.pop_front();
  }
  return Receive::kEmpty;
}

bool LocalStreamServer::trySend(const std::string& routing_id, std::string_view frame) {
  auto it = connections_.find(routing_id);
  if (it == connections_.end() || it->second->fd < 0) return true;
  Connection& c = *it->second;
  writeBacklog(c);
  if (c.fd < 0) return true;
  if (c.backlog.empty() && c.writer.trySend(c.fd, frame)) {
    if (c.writer.failed()) {
      close(c, "write failed");
    } else {
      watchWrites(c);  // the socket took part of it: the writer holds the rest
    }
    return true;
  }
  if (c.backlog.size() >= max_backlog_ || (!c.backlog.empty() && c.backlog_bytes + frame.size() > max_frame_)) {
    c.refused = true;
    return false;
  }
  c.backlog.emplace_back(frame);
  c.backlog_bytes += frame.size();
  watchWrites(c);
  return true;
}

bool LocalStreamServer::hasRoom(const std::string& routing_id) {
  auto it = connections_.find(routing_id);
  if (it == connections_.end() || it->second->fd < 0) return true;
  Connection& c = *it->second;
  writeBacklog(c);
  return c.fd < 0 || !c.refused;
}

void LocalStreamServer::watchWrites(Connection& c) {
  const bool waiting = c.writer.pending() || !c.backlog.empty();
  c.registration.modify(EPOLLIN | (waiting ? EPOLLOUT : 0u));
}

void LocalStreamServer::writeBacklog(Connection& c) {
  const std::size_t waiting = c.writer.pendingBytes() + c.backlog_bytes;
  c.writer.flush(c.fd);
  while (!c.backlog.empty() && !c.writer.failed() && c.writer.trySend(c.fd, c.backlog.front())) {
    c.backlog_bytes -= c.backlog.front().size();
    c.backlog.pop_front();
  }
  if (c.writer.pendingBytes() + c.backlog_bytes < waiting) c.refused = false;  // the client read
  if (c.writer.failed()) {
    close(c, "write failed");
  } else {
    watchWrites(c);
  }
}

void LocalStreamServer::close(Connection& c, std::string_view why) {
  if (c.fd < 0) return;
  if (!why.empty()) spdlog::debug("{}: connection of pid {} closed: {}", endpoint_, c.credentials.pid, why);
  c.registration.reset();  // before the descriptor goes
  ::close(c.fd);
  if (auto held = per_uid_.find(c.credentials.uid); held != per_uid_.end() && --held->second == 0) {
    per_uid_.erase(held);
  }
  c.fd = -1;
  c.backlog.clear();
  c.backlog_bytes = 0;
  closed_.push_back(c.routing_id);
}

std::vector<std::string> LocalStreamServer::quietSince(std::chrono::steady_clock::time_point before) const {
  std::vector<std::string> quiet;
  for (const auto& [id, c] : connections_) {
    if (c->fd >= 0 && c->last_frame < before) quiet.push_back(id);
  }
  return quiet;
}

void LocalStreamServer::disconnect(const std::string& routing_id, std::string_view why) {
  auto it = connections_.find(routing_id);
  if (it != connections_.end()) close(*it->second, why);
}

std::size_t LocalStreamServer::writePending() {
  std::size_t waiting = 0;
  for (auto& [id, c] : connections_) {
    if (c->fd < 0) continue;
    writeBacklog(*c);
    if (c->fd >= 0) waiting += c->backlog.size() + (c->writer.pending() ? 1 : 0);
  }
  return waiting;
}

std::vector<std::string> LocalStreamServer::takeClosed() {
  std::erase_if(ready_, [](const Connection* c) { return c->fd < 0; });  // before they are freed
  for (const auto& id : closed_) connections_.erase(id);
  std::vector<std::string> closed;
  closed.swap(closed_);
  return closed;
}

}  // namespace ftb::agent
