// A socket of client/transport/zmq_socket.h for tests that play both ends: opened with
// linger 0, so that a test's context ends at once whatever is left queued.
// Throws when libzmq refuses (a test then fails with the reason).
#pragma once

#include <stdexcept>
#include <utility>

#include "client/transport/zmq_socket.h"

namespace ftb::testing {

inline ZmqSocket openTestSocket(ZmqContext& context, ZmqType type) {
  Result<ZmqSocket> socket = ZmqSocket::open(context, type);
  if (!socket.ok()) throw std::runtime_error("cannot open a ZeroMQ socket: " + socket.status().message());
  if (Status s = socket->set(ZmqOption::kLinger, 0); !s.ok()) {
    throw std::runtime_error("cannot set ZMQ_LINGER: " + s.message());
  }
  return std::move(socket).value();
}

}  // namespace ftb::testing
