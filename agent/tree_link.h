// The tree's transport over ZeroMQ: one DEALER per peer address, connected on
// first use. Peers answer on their own DEALER to our ROUTER, so every tree
// message arrives on the agent's ROUTER and leaves by a DEALER.
// A peer that cannot keep up gets a bounded backlog; beyond it the backlog is
// dropped and counted, and the link is left to time out: the repair that
// follows replays what was lost from the relay logs.
// Threading: the agent's event-loop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <zmq.hpp>

#include "agent/rate_limited_log.h"
#include "agent/tree/tree_node.h"

namespace ftb::agent {

// CurveZMQ on links to peers: this agent's key pair and the agents' server key.
struct CurveClientKeys {
  std::string server_public;  // Z85
  std::string public_key;
  std::string secret_key;
};

class ZmqTreeTransport : public tree::TreeTransport {
 public:
  // `curve` set: every link is encrypted and authenticated with these keys.
  ZmqTreeTransport(zmq::context_t& context, std::size_t max_backlog_frames,
                   std::optional<CurveClientKeys> curve = std::nullopt);

  void send(const std::string& to, tree::TreeMessage message) override;
  void forget(const std::string& to) override;
  // Retries backlogs, discards whatever peers sent back on our DEALERs, and
  // closes sockets idle for a while.
  void flush(std::chrono::steady_clock::time_point now);
  bool backlogged() const;

  uint64_t framesDropped() const { return frames_dropped_; }

 private:
  struct Peer {
    zmq::socket_t socket;
    std::deque<std::string> backlog;
    std::chrono::steady_clock::time_point last_used;
  };
  Peer& peer(const std::string& address);
  bool trySend(Peer& peer, const std::string& frame);

  zmq::context_t& context_;
  std::size_t max_backlog_frames_;
  std::optional<CurveClientKeys> curve_;
  std::map<std::string, std::unique_ptr<Peer>> peers_;
  uint64_t frames_dropped_ = 0;
  RateLimitedLog log_;
};

}  // namespace ftb::agent
