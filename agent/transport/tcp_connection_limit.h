// TcpConnectionLimit: bounds on the connections of the agent's TCP endpoint,
// in all and per remote host. libzmq accepts them itself, before the agent
// hears of them, so the agent cannot refuse one at the door as it does on its
// stream socket. A monitor of the agent's socket reports each connection a TCP
// listener accepted, with its descriptor, and each close; past a limit the
// agent shuts the new connection down (shutdown(2), never close: the
// descriptor stays libzmq's, which then sees the end and closes it). So no one
// can take every descriptor by holding connections open.
//
// The events keep a map of open descriptors to remote hosts (a descriptor
// closed and reused is removed, then added again, in the events' order). A
// descriptor from an event may have been reused by the time it is read: only
// a connected TCP socket on one of the agent's TCP ports is ever shut down, so
// a reused descriptor that is anything else is left alone. When the map says
// a limit is passed, a scan of the agent's descriptors (at most once a second)
// replaces it, should libzmq have closed a connection without telling.
// Threading: one thread (the agent's event loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/loop/rate_limited_log.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"

namespace ftb::agent {

class TcpConnectionLimit {
 public:
  struct Limits {
    std::size_t total = 0;     // connections in all; 0: no limit
    std::size_t per_host = 0;  // connections from one remote address; 0: no limit
  };

  TcpConnectionLimit() = default;  // watches nothing
  // Before `socket` binds, so that no connection goes uncounted.
  static Result<TcpConnectionLimit> watch(ZmqContext& context, ZmqSocket& socket, Limits limits);

  // After each bind: a TCP endpoint the socket listens on ("tcp://ADDRESS:PORT").
  void addListener(const std::string& endpoint);

  // Reads the events waiting, shutting down connections past the limit.
  void poll();

  bool isOpen() const { return monitor_.isOpen(); }
  const ZmqSocket& monitorSocket() const { return monitor_.socket(); }
  std::size_t open() const { return open_.size(); }
  const Limits& limits() const { return limits_; }
  uint64_t refused() const { return refused_; }

 private:
  bool isOurConnection(int fd) const;
  void remember(int fd, std::string host);
  void forget(int fd);
  // Why the newest connection, from `host`, is one too many; "" when it is not.
  std::string overLimit(const std::string& host);
  void rescan();
  void refuse(int fd, const std::string& endpoint, const std::string& why);

  ZmqMonitor monitor_;
  Limits limits_;
  std::vector<uint16_t> ports_;
  std::unordered_map<int, std::string> open_;  // descriptor -> remote host
  std::unordered_map<std::string, std::size_t> per_host_;
  uint64_t refused_ = 0;
  std::chrono::steady_clock::time_point last_scan_{};
  RateLimitedLog log_{1};
};

}  // namespace ftb::agent
