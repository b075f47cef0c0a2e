// ZmqFrameSink: the Router's FrameSink (router.h) over the agent's ZeroMQ
// ROUTER socket, which must have kRouterMandatory set. A peer ZeroMQ no longer
// knows is handed to `on_unreachable` and counts as sent; any other failure is
// logged rate-limited and counts as sent too (the frame is dropped).
//
//   ZmqFrameSink sink(socket, log, [&](const std::string& id) { doomed.push_back(id); });
//   if (!sink.trySend(routing_id, frame)) queue(frame);  // the client's pipe is full
//
// The send side of the agent's client socket (ZmqFrameSource reads).
// Threading: not thread-safe; only the thread that owns the socket (the
// agent's event loop) calls it. It holds references to the socket and the log.
#pragma once

#include <functional>
#include <string>

#include "agent/loop/rate_limited_log.h"
#include "agent/routing/router.h"
#include "client/transport/zmq_socket.h"

namespace ftb::agent {

class ZmqFrameSink final : public FrameSink {
 public:
  using Unreachable = std::function<void(const std::string& routing_id)>;

  ZmqFrameSink(ZmqSocket& socket, RateLimitedLog& log, Unreachable on_unreachable)
      : socket_(socket), log_(log), on_unreachable_(std::move(on_unreachable)) {}

  // Without blocking: false when the peer's pipe is full (EAGAIN).
  bool trySend(const std::string& routing_id, const std::string& frame) override;

 private:
  ZmqSocket& socket_;
  RateLimitedLog& log_;
  Unreachable on_unreachable_;
};

}  // namespace ftb::agent
