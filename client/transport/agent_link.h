// AgentLink: the SDK I/O thread's connection to its agent. Two transports
// behind one interface:
// - ZeroMQ (ipc://, tcp://, Curve on tcp): a DEALER socket; libzmq reconnects
//   by itself and a socket monitor reports the handshakes and disconnects;
// - the agent's own Unix stream socket (unix://PATH): length-prefixed frames
//   (client/transport/stream_frames.h) written and read by the I/O thread itself, with no
//   libzmq thread in between; reconnects every 100 ms to 1 s while the agent is away.
//
//   auto link = AgentLink::create(endpoint, curve);
//   link->prepareWait(wake_fd, want_out);  link->wait(timeout);  link->afterWait();
//   while (auto frame = link->receive()) handle(*frame);
//   while ((change = link->takeChange()) != AgentLink::Change::kNone) ...
//
// ZeroMQ stays inside zmq_agent_link.cc: a unix:// client has no libzmq context
// and no libzmq thread at all.
// Threading: the SDK's I/O thread only, except send() where sendsFromAnyThread().
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <sys/un.h>

#include "client/curve_keys.h"  // CurveClientKeys: ignored for ipc:// and unix://
#include "client/status.h"

namespace ftb {

class AgentLink {
 public:
  enum class Change { kNone, kConnected, kDisconnected };

  // Starts connecting. kInvalidArgument for an endpoint neither transport takes.
  static Result<std::unique_ptr<AgentLink>> create(const std::string& endpoint,
                                                   const CurveClientKeys& curve);
  virtual ~AgentLink() = default;

  // Drops the connection and starts a fresh one (an agent that stopped answering).
  virtual void reopen() = 0;
  // One wait of the I/O thread, in three steps so that the owner's lock is
  // held around the first and the last but not while it blocks. What to wait
  // for: frames, room to write when `want_out`, and the owner's `wake_fd` (-1: none).
  virtual void prepareWait(int wake_fd, bool want_out) = 0;
  // Blocks up to `timeout`; true when `wake_fd` became readable. A signal ends it early.
  virtual bool wait(std::chrono::milliseconds timeout) = 0;
  // Takes note of what was ready (frames to read, room to write, reconnects).
  virtual void afterWait() = 0;
  // The next frame from the agent, without blocking; valid until the next call.
  virtual std::optional<std::string_view> receive() = 0;
  // Without blocking: false when the frame could not be taken (full, or not connected).
  virtual bool send(std::string_view frame) = 0;
  // Whether send() may run on another thread than the other calls, as long as
  // the owner serializes every call with one lock (the stream link: its send
  // touches only the write side; a ZeroMQ socket belongs to one thread).
  virtual bool sendsFromAnyThread() const { return false; }
  // Connections made or lost since the last call, one at a time.
  virtual Change takeChange() = 0;
  // Gives frames already sent up to `linger` to reach the agent, then closes.
  virtual void close(std::chrono::milliseconds linger) = 0;
};

}  // namespace ftb

namespace ftb::detail {
// The two transports (zmq_agent_link.cc, stream_agent_link.cc); use AgentLink::create.
// kInvalidArgument when libzmq refuses the endpoint.
Result<std::unique_ptr<AgentLink>> makeZmqAgentLink(const std::string& endpoint,
                                                    const CurveClientKeys& curve);
std::unique_ptr<AgentLink> makeStreamAgentLink(const sockaddr_un& address);
}  // namespace ftb::detail
