// LocalStreamServer: the agent's own Unix-socket path for local clients
// (`unix://` endpoints, --local-endpoint). The agent's loop polls the
// listening socket and every connection itself, so a frame goes from the
// client's socket to the router with no thread in between (ZeroMQ's ipc://
// path wakes libzmq's I/O thread on each side of every frame). Frames are
// length-prefixed (client/transport/stream_frames.h); each connection is a routing id
// of its own that no ZeroMQ peer can claim (isRoutingId), and carries the
// kernel's SO_PEERCRED taken at accept.
//
//   auto server = LocalStreamServer::listen("unix:///run/ftb/agent.stream", max_frame, hwm, poller);
//   poller.wait(timeout);  // accepts, marks connections readable, writes what waits
//   while (server->tryReceive(frame) == Receive::kFrame) handle(frame);
//   if (server->hasInput()) ...                         // a budget left frames unread
//   if (!server->trySend(id, bytes)) queue(bytes);      // the client's socket is full
//   for (auto& id : server->takeClosed()) forget(id);  // EOF, error, oversized frame
//   for (auto& id : server->quietSince(now - timeout)) server->disconnect(id, "idle");
//
// Threading: not thread-safe; the agent's event loop owns it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/security/peer_credentials.h"
#include "agent/transport/zmq_frame_source.h"
#include "client/status.h"
#include "client/transport/stream_frames.h"

namespace ftb::agent {

// How many connections the server holds, so that no user can take every
// descriptor the agent has (docs/SECURITY.md, "Descriptors").
struct ConnectionLimits {
  uint32_t per_uid = 0;   // connections one uid may hold; 0: no limit (root and the agent's own uid: none)
  std::size_t total = 0;  // connections in all; 0: no limit
};

class LocalStreamServer {
 public:
  // Binds the socket file (mode 0666: who may say what is the policy's job).
  // A file left by a dead agent is replaced; one a live agent answers on is not.
  // `backlog_frames`: frames a connection may hold beyond what its socket takes
  // (as ZeroMQ's pipe holds socket-hwm frames) before trySend says full; it
  // also says full once they hold `max_frame_bytes` (a peer that never reads
  // costs at most that, whatever it asks for).
  // The listening socket and every connection are watched in `poller`, which
  // outlives the server.
  // A connection over `limits`, or one the process has no descriptor for, is
  // closed at once and counted (refused()); one log line a second says why.
  static Result<std::unique_ptr<LocalStreamServer>> listen(const std::string& endpoint,
                                                           std::size_t max_frame_bytes,
                                                           std::size_t backlog_frames,
                                                           ConnectionLimits limits, Poller& poller);
  ~LocalStreamServer();  // closes every connection, removes the socket file
  LocalStreamServer(const LocalStreamServer&) = delete;
  LocalStreamServer& operator=(const LocalStreamServer&) = delete;

  const std::string& endpoint() const { return endpoint_; }
  // Whether `routing_id` names one of this transport's connections (now or once).
  static bool isRoutingId(const std::string& routing_id);

  // The next whole frame from a connection the poller found readable (in the
  // order they became so); its views stay valid until the next call.
  Receive tryReceive(InboundFrame& frame);
  // Whether a connection may still hold frames that tryReceive did not return
  // (the caller's budget ran out): the loop should not sleep.
  bool hasInput() const { return !ready_.empty(); }
  // Without blocking: false when the client's socket and its backlog are full.
  // A connection that is gone counts as sent (takeClosed reports it).
  bool trySend(const std::string& routing_id, std::string_view frame);
  // False when trySend refused a frame of this connection and its client has
  // read nothing since (after writing what its socket takes now): a caller
  // need not build another frame that would be refused.
  bool hasRoom(const std::string& routing_id);
  // Writes what every connection holds as far as its socket takes it (the
  // shutdown drain); frames still waiting after it, in all connections.
  std::size_t writePending();
  // Connections that ended since the last call, each reported once.
  std::vector<std::string> takeClosed();
  std::size_t connections() const { return connections_.size(); }
  // Connections closed at accept: over a limit, or for want of a descriptor.
  uint64_t refused() const { return refused_; }
  // Open connections whose last whole frame (or their accept) came before
  // `before`: a connection that sends half a frame, or nothing, stays on it.
  std::vector<std::string> quietSince(std::chrono::steady_clock::time_point before) const;
  // Closes a connection (takeClosed reports it); no effect on one that is gone.
  void disconnect(const std::string& routing_id, std::string_view why);

 private:
  struct Connection {
    int fd = -1;
    std::string routing_id;
    PeerCredentials credentials;
    wire::StreamFrameReader reader;
    wire::StreamFrameWriter writer;
    std::deque<std::string> backlog;  // frames after the one the writer holds, in order
    std::size_t backlog_bytes = 0;
    bool refused = false;   // trySend refused a frame; the client read nothing since
    bool readable = false;  // the poller said so and a read has not yet found it empty
    bool queued = false;    // in ready_
    std::chrono::steady_clock::time_point last_frame;  // accept, then each whole frame read
    Poller::Registration registration;  // EPOLLIN, and EPOLLOUT while a frame waits
    explicit Connection(std::size_t max_frame) : reader(max_frame) {}
  };

  LocalStreamServer(std::string endpoint, std::string path, int fd, std::size_t max_frame,
                    std::size_t backlog_frames, ConnectionLimits limits, Poller& poller)
      : endpoint_(std::move(endpoint)), path_(std::move(path)), listen_fd_(fd),
        max_frame_(max_frame), max_backlog_(backlog_frames), limits_(limits), poller_(poller) {}
  void acceptAll();
  // Out of descriptors: accepts the next connection on the reserve descriptor
  // and closes it, so that it leaves the backlog (else the listening socket
  // stays readable and the loop spins). False when even that failed.
  bool shedOne(int accept_errno);
  // Why `credentials` may not hold one more connection, or "" when it may.
  std::string overLimit(const PeerCredentials& credentials) const;
  void onReady(Connection& c, uint32_t events);
  void writeBacklog(Connection& c);  // as much of it as the socket takes
  void watchWrites(Connection& c);   // EPOLLOUT exactly while something waits
  void close(Connection& c, std::string_view why);

  std::string endpoint_;
  std::string path_;
  int listen_fd_;
  std::size_t max_frame_;
  std::size_t max_backlog_;
  ConnectionLimits limits_;
  Poller& poller_;
  int reserve_fd_ = -1;  // /dev/null, given up to accept one connection when out of descriptors
  std::unordered_map<uint32_t, uint32_t> per_uid_;  // open connections by uid
  uint64_t refused_ = 0;
  RateLimitedLog refusals_log_{1};
  Poller::Registration listening_;
  uint64_t next_id_ = 1;
  std::unordered_map<std::string, std::unique_ptr<Connection>> connections_;
  std::deque<Connection*> ready_;  // readable, or holding whole frames: tryReceive's queue
  std::vector<std::string> closed_;
};

}  // namespace ftb::agent
