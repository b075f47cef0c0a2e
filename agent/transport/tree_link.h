// The tree's transport over ZeroMQ: one DEALER per peer address, connected on
// first use. Peers answer on their own DEALER to our ROUTER, so every tree
// message arrives on the agent's ROUTER and leaves by a DEALER.
// A peer that cannot keep up gets a bounded backlog; beyond it the backlog is
// dropped and counted, and the link is left to time out: the repair that
// follows replays what was lost from the relay logs.
//
// Liveness below the tree's heartbeats: beside the data DEALER, each peer gets
// a probe DEALER that carries no messages, only ZMTP heartbeats (`LinkPing`),
// with a socket monitor reporting its connection closing. That happens when
// the peer's kernel sends FIN/RST (its process died) and when libzmq's I/O
// thread sent a PING and heard nothing back in time (a silent death).
// With PINGs on, both ends of a probe live in a ZeroMQ context of their own
// (listenForProbes: a listener on another port, advertised as NodeRef::probe),
// whose one I/O thread does nothing but PINGs and PONGs. The scheduler runs
// such a mostly sleeping thread within milliseconds even when the agent's loop
// and its data I/O thread wait seconds for a core (ftb_tree_bench's load step:
// 70 busy threads on 2 cores), so a starved but healthy agent still answers,
// and a stopped or powered-off one does not. On the data connection, or on
// the data I/O thread, PINGs would wait behind event batches and starve with
// them: healthy links were declared dead. Where the process may, that thread
// also runs under SCHED_RR (`rt_priority`): then a CPU hog of normal priority
// cannot delay a PONG either (a 2-core machine with the load step plus one
// busy process declared healthy links dead in 3 of 8 runs without it).
// Threading: the agent's event-loop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/tree/tree_node.h"
#include "client/curve_keys.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"

namespace ftb::agent {

// ZMTP heartbeats on each DEALER (ZMQ_HEARTBEAT_IVL / ZMQ_HEARTBEAT_TIMEOUT).
struct LinkPing {
  std::chrono::milliseconds interval{0};  // 0: no PINGs
  std::chrono::milliseconds timeout{0};   // silence after a PING that closes the connection
};

class ZmqTreeTransport : public tree::TreeTransport {
 public:
  // `curve` set: every link is encrypted and authenticated with these keys.
  // Each link's monitor is watched in `poller` (which outlives the transport),
  // so that a connection closing wakes the agent's loop.
  ZmqTreeTransport(ZmqContext& context, Poller& poller, std::size_t max_backlog_frames,
                   LinkPing ping = {}, std::optional<CurveClientKeys> curve = std::nullopt);

  void send(const std::string& to, tree::TreeMessage message) override;
  void forget(const std::string& to) override;
  // With PINGs on: binds the probe listener (`endpoint`, e.g. tcp://10.0.0.7:0)
  // in the probe context, whose I/O thread runs under SCHED_RR at
  // `rt_priority` if this process may (0: normal scheduling); returns where it
  // listens. Errors name the endpoint.
  Result<std::string> listenForProbes(const std::string& endpoint, int rt_priority = 0);
  // Whether the probe thread runs under SCHED_RR (see listenForProbes), and
  // if it was asked for but refused, why (strerror).
  bool realtimeProbes() const { return realtime_probes_; }
  const std::string& realtimeRefusal() const { return realtime_refusal_; }
  // A message from the peer at `address` says where it answers PINGs ("" = at
  // `address`); its probe connects there, once it has been sent to.
  void learnProbe(const std::string& address, const std::string& probe);
  // Retries backlogs, discards whatever peers sent back on our DEALERs, and
  // closes sockets idle for a while.
  void flush(std::chrono::steady_clock::time_point now);
  bool backlogged() const;
  // Peers whose connection closed since the last call (each once per close).
  std::vector<std::string> takeDisconnected();
  // Whether a monitor holds an event takeDisconnected has not read (ZeroMQ's
  // descriptor may have been reset by then): the loop should not sleep.
  bool hasInput();

  uint64_t framesDropped() const { return frames_dropped_; }

 private:
  struct Peer {
    ZmqSocket socket;    // tree messages
    ZmqSocket probe;     // no messages: ZMTP PINGs only, watched by `monitor`
    ZmqMonitor monitor;  // the probe's disconnect events
    Poller::Registration monitor_watch;  // the monitor's descriptor (dropped before it closes)
    std::string probe_target;  // where `probe` is connected ("" = not yet)
    std::deque<std::string> backlog;
    std::chrono::steady_clock::time_point last_used;
  };
  Peer& peer(const std::string& address);
  bool trySend(Peer& peer, const std::string& frame);
  void connectProbe(Peer& peer, const std::string& address, const std::string& target);
  void watch(ZmqContext& context, Peer& peer, const std::string& address);
  Status setCurve(ZmqSocket& socket);

  ZmqContext& context_;
  Poller& poller_;
  // PINGs on: the probes' own context and listener (declared first: the
  // sockets in it close before it ends).
  std::unique_ptr<ZmqContext> probe_context_;
  bool realtime_probes_ = false;
  std::string realtime_refusal_;
  ZmqSocket probe_listener_;
  std::size_t max_backlog_frames_;
  LinkPing ping_;
  std::optional<CurveClientKeys> curve_;
  std::map<std::string, std::unique_ptr<Peer>> peers_;
  uint64_t frames_dropped_ = 0;
  ZmqMessage ignored_;  // what peers send back on our DEALERs
  RateLimitedLog log_;
};

}  // namespace ftb::agent
