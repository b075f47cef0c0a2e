#include "agent/zmq_frame_sink.h"

#include <cerrno>

namespace ftb::agent {

bool ZmqFrameSink::trySend(const std::string& routing_id, const std::string& frame) {
  try {
    if (!socket_.send(zmq::buffer(routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      return false;
    }
    (void)socket_.send(zmq::buffer(frame), zmq::send_flags::dontwait);
    return true;
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) {
      if (on_unreachable_) on_unreachable_(routing_id);
      return true;
    }
    log_.warn("send", "send failed: {}", e.what());
    return true;
  }
}

}  // namespace ftb::agent
