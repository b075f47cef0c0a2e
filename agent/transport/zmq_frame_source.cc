#include "agent/transport/zmq_frame_source.h"

namespace ftb::agent {

Receive ZmqFrameSource::tryReceive(InboundFrame& frame) {
  if (!socket_.receive(routing_id_)) return Receive::kEmpty;
  if (!routing_id_.more() || !socket_.receive(body_)) return Receive::kIncomplete;
  // Drain any extra frames: ftb messages are single-frame.
  frame.multipart = false;
  while (body_.more()) {
    (void)socket_.receive(rest_);
    frame.multipart = true;
    if (!rest_.more()) break;
  }
  frame.routing_id.assign(routing_id_.bytes());
  frame.body = body_.bytes();
  frame.peer_address = body_.property("Peer-Address");
  frame.user_id = body_.property("User-Id");
  frame.credentials = nullptr;
  return Receive::kFrame;
}

}  // namespace ftb::agent
