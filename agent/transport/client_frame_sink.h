// ClientFrameSink: the Router's FrameSink over both client transports. A
// routing id of the local stream socket goes to LocalStreamServer, any other
// to the ZeroMQ ROUTER socket (ZmqFrameSink).
// Threading: the agent's event loop only, like both transports.
#pragma once

#include <memory>

#include "agent/transport/local_stream_server.h"
#include "agent/transport/zmq_frame_sink.h"

namespace ftb::agent {

class ClientFrameSink final : public FrameSink {
 public:
  ClientFrameSink(ZmqFrameSink& zmq, const std::unique_ptr<LocalStreamServer>& local)
      : zmq_(zmq), local_(local) {}

  bool trySend(const std::string& routing_id, const std::string& frame) override {
    if (local_ && LocalStreamServer::isRoutingId(routing_id)) return local_->trySend(routing_id, frame);
    return zmq_.trySend(routing_id, frame);
  }
  // The stream socket knows when a client reads nothing; the ROUTER socket does not tell.
  bool hasRoom(const std::string& routing_id) override {
    return !(local_ && LocalStreamServer::isRoutingId(routing_id)) || local_->hasRoom(routing_id);
  }

 private:
  ZmqFrameSink& zmq_;
  const std::unique_ptr<LocalStreamServer>& local_;  // null when --local-endpoint is none
};

}  // namespace ftb::agent
