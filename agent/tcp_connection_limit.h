// TcpConnectionLimit: a bound on the connections of the agent's TCP endpoint.
// libzmq accepts them itself, before the agent hears of them, so the agent
// cannot refuse one at the door as it does on its stream socket. A monitor of
// the agent's socket reports each connection a TCP listener accepted, with its
// descriptor, and each close; past the limit the agent shuts the new
// connection down (shutdown(2), never close: the descriptor stays libzmq's,
// which then sees the end and closes it). So no one can take every descriptor
// by holding connections open.
//
// The open connections are a set of descriptors that the events keep (a
// descriptor closed and reused is removed, then added again, in the events'
// order). A descriptor from an event may have been reused by the time it is
// read: only a connected TCP socket on one of the agent's TCP ports is ever
// shut down, so a reused descriptor that is anything else is left alone. When
// the set says the limit is passed, a scan of the agent's descriptors (at most
// once a second) replaces it, should libzmq have closed a connection without
// telling.
// Threading: one thread (the agent's event loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "agent/rate_limited_log.h"
#include "client/status.h"
#include "client/zmq_socket.h"

namespace ftb::agent {

class TcpConnectionLimit {
 public:
  TcpConnectionLimit() = default;  // watches nothing
  // Before `socket` binds, so that no connection goes uncounted.
  static Result<TcpConnectionLimit> watch(ZmqContext& context, ZmqSocket& socket, std::size_t limit);

  // After each bind: a TCP endpoint the socket listens on ("tcp://ADDRESS:PORT").
  void addListener(const std::string& endpoint);

  // Reads the events waiting, shutting down connections past the limit.
  void poll();

  bool isOpen() const { return monitor_.isOpen(); }
  const ZmqSocket& monitorSocket() const { return monitor_.socket(); }
  std::size_t open() const { return open_.size(); }
  std::size_t limit() const { return limit_; }
  uint64_t refused() const { return refused_; }

 private:
  bool isOurConnection(int fd) const;
  std::unordered_set<int> findOurConnections() const;
  void refuse(int fd, const std::string& endpoint);

  ZmqMonitor monitor_;
  std::size_t limit_ = 0;
  std::vector<uint16_t> ports_;
  std::unordered_set<int> open_;  // descriptors
  uint64_t refused_ = 0;
  std::chrono::steady_clock::time_point last_scan_{};
  RateLimitedLog log_{1};
};

}  // namespace ftb::agent
