// ZmqFrameSource: reads clients' frames from the agent's ZeroMQ ROUTER socket
// without blocking, one [routing id, body] message at a time, with what
// ZeroMQ and the kernel say about the sender (never what the message says).
// The receive side of the agent's socket seam (ZmqFrameSink is the send side).
//
//   ZmqFrameSource source(socket);
//   InboundFrame frame;
//   while (source.tryReceive(frame) != Receive::kEmpty) { ... frame.body ... }
//
// Threading: not thread-safe; only the thread that owns the socket (the
// agent's event loop) calls it. A frame's views stay valid until the next
// tryReceive on the same source.
#pragma once

#include <string>
#include <string_view>

#include "agent/security/peer_credentials.h"
#include "client/transport/zmq_socket.h"

namespace ftb::agent {

// A client's frame as either transport hands it over (LocalStreamServer is the other).
struct InboundFrame {
  std::string routing_id;
  std::string_view body;
  bool multipart = false;              // more than one body part: not an ftb message
  const char* peer_address = nullptr;  // ZeroMQ's "Peer-Address" (ipc: the kernel's pid/uid/gid)
  const char* user_id = nullptr;       // ZeroMQ's "User-Id" (Curve: the admitted key)
  // The local stream socket's SO_PEERCRED, taken when the client connected.
  const PeerCredentials* credentials = nullptr;
};

enum class Receive {
  kEmpty,       // nothing pending
  kIncomplete,  // a routing id without a body: nothing to hand over
  kFrame,       // `frame` holds a message
};

class ZmqFrameSource {
 public:
  explicit ZmqFrameSource(ZmqSocket& socket) : socket_(socket) {}

  // The next pending message into `frame`; drains (and marks multipart) any
  // parts after the body.
  Receive tryReceive(InboundFrame& frame);

 private:
  ZmqSocket& socket_;
  ZmqMessage routing_id_;
  ZmqMessage body_;
  ZmqMessage rest_;
};

}  // namespace ftb::agent
