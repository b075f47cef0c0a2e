#include "agent/zmq_frame_source.h"

namespace ftb::agent {

Receive ZmqFrameSource::tryReceive(InboundFrame& frame) {
  if (!socket_.recv(routing_id_, zmq::recv_flags::dontwait)) return Receive::kEmpty;
  if (!routing_id_.more() || !socket_.recv(body_, zmq::recv_flags::dontwait)) {
    return Receive::kIncomplete;
  }
  // Drain any extra frames: ftb messages are single-frame.
  frame.multipart = false;
  while (body_.more()) {
    zmq::message_t rest;
    (void)socket_.recv(rest, zmq::recv_flags::dontwait);
    frame.multipart = true;
    if (!rest.more()) break;
  }
  frame.routing_id = routing_id_.to_string();
  frame.body = std::string_view(static_cast<const char*>(body_.data()), body_.size());
  frame.peer_address = zmq_msg_gets(body_.handle(), "Peer-Address");
  frame.user_id = zmq_msg_gets(body_.handle(), "User-Id");
  frame.credentials = nullptr;
  return Receive::kFrame;
}

}  // namespace ftb::agent
