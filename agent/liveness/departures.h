// Departures: how the agent learns, within milliseconds, that a client
// vanished without a Goodbye, and when it may call it lost.
//
// A stream client's (unix://) connection reports its end itself: the
// LocalStreamServer's EOF, after its last frames were read. ZeroMQ tells a
// ROUTER nothing when a peer's connection closes; it only answers
// EHOSTUNREACH (router_mandatory) once the pipe is gone. So:
//  1. a local client's process is watched through a pidfd (from its peer
//     credentials); it turns readable when the process exits;
//  2. its socket is then probed every turn (a request-less Ok frame, which
//     the SDK ignores) until the transport reports it gone;
//  3. the session is lost only in a later turn that has read every pending
//     frame: ZeroMQ hands over a peer's frames before it forgets the peer, so
//     a Goodbye sent just before a clean exit wins.
// A socket that goes while its process lives (the SDK reconnects, or a TCP
// client, whose process the agent cannot watch) keeps the session until the
// client says Hello again or --client-timeout-ms passes (expired elsewhere).
//
//   Departures departures({poller, sessions, sink, clock, config, log}, lost);
//   departures.watch(session);            // at Hello
//   departures.socketGone(routing_id);     // a send found it gone, a stream EOF
//   loop turn: read input; if none is left, departures.settle(); ...; departures.endTurn(now);
//
// Threading: the agent's event loop only.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/config/config.h"
#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/routing/router.h"
#include "agent/sessions/session_table.h"
#include "client/clock.h"

namespace ftb::agent {

class Departures {
 public:
  struct Parts {
    Poller& poller;          // where the pidfds are watched
    SessionTable& sessions;  // whose sessions are watched
    FrameSink& sink;         // where the probes go (a gone peer comes back through socketGone)
    const Clock& clock;
    const AgentConfig& config;  // client_timeout_ms: how long a socket is probed after its process exit
    RateLimitedLog& log;
  };
  // `lost` removes a session whose client is gone for good, saying why.
  using Lost = std::function<void(const std::string& routing_id, std::string_view why)>;
  Departures(Parts parts, Lost lost) : parts_(parts), lost_(std::move(lost)) {}

  // Watches the process of a local client, when its session knows it.
  void watch(ClientSession& session);
  // A transport reports the session's socket gone (ignored without a session).
  void socketGone(std::string routing_id);

  // Whether the loop should not sleep: sessions wait to be settled.
  bool settling() const { return !departed_.empty(); }
  // Whether some exited process's socket is being probed (the loop wakes soon).
  bool probing() const;
  // After a turn that read every pending frame: sessions whose socket went in
  // an earlier turn are lost when their process exited, or marked socket_gone.
  void settle();
  // The end of a turn: probes the sockets of exited processes and queues the
  // sockets reported gone this turn for settle().
  void endTurn(std::chrono::steady_clock::time_point now);
  // The sockets reported gone and not settled (at shutdown, when no will goes out).
  std::vector<std::string> takeGone();

 private:
  void onProcessExited(ClientSession& session);

  Parts parts_;
  Lost lost_;
  std::vector<std::string> gone_;      // reported gone this turn
  std::vector<std::string> departed_;  // gone in an earlier turn: settle()
};

}  // namespace ftb::agent
