#include "agent/transport/zmq_frame_sink.h"

namespace ftb::agent {

bool ZmqFrameSink::trySend(const std::string& routing_id, const std::string& frame) {
  switch (socket_.send(routing_id, /*more=*/true)) {
    case ZmqSent::kSent:
      break;
    case ZmqSent::kWouldBlock:
      return false;
    case ZmqSent::kNoSuchPeer:
      if (on_unreachable_) on_unreachable_(routing_id);
      return true;
    case ZmqSent::kFailed:
      log_.warn("send", "send failed: {}", ZmqSocket::lastError());
      return true;
  }
  // The routing id is taken: the body goes on the same pipe.
  (void)socket_.send(frame);
  return true;
}

}  // namespace ftb::agent
