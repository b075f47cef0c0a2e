#include "agent/tree_link.h"

#include "agent/tree_wire.h"
#include "client/codec.h"

namespace ftb::agent {
namespace {

constexpr auto kIdleClose = std::chrono::seconds(30);

}  // namespace

ZmqTreeTransport::ZmqTreeTransport(zmq::context_t& context, std::size_t max_backlog_frames,
                                   std::optional<CurveClientKeys> curve)
    : context_(context), max_backlog_frames_(max_backlog_frames), curve_(std::move(curve)) {}

ZmqTreeTransport::Peer& ZmqTreeTransport::peer(const std::string& address) {
  auto& slot = peers_[address];
  if (!slot) {
    slot = std::make_unique<Peer>(Peer{zmq::socket_t(context_, zmq::socket_type::dealer), {}, {}});
    zmq::socket_t& s = slot->socket;
    s.set(zmq::sockopt::linger, 200);  // let a Leave on shutdown go out
    s.set(zmq::sockopt::sndhwm, 10000);
    s.set(zmq::sockopt::reconnect_ivl, 100);
    s.set(zmq::sockopt::reconnect_ivl_max, 1000);
    try {
      if (curve_) {
        s.set(zmq::sockopt::curve_serverkey, curve_->server_public);
        s.set(zmq::sockopt::curve_publickey, curve_->public_key);
        s.set(zmq::sockopt::curve_secretkey, curve_->secret_key);
      }
      s.connect(address);
    } catch (const zmq::error_t& e) {
      log_.warn("tree-connect", "cannot connect to tree peer {}: {}", address, e.what());
    }
  }
  slot->last_used = std::chrono::steady_clock::now();
  return *slot;
}

bool ZmqTreeTransport::trySend(Peer& p, const std::string& frame) {
  try {
    return static_cast<bool>(p.socket.send(zmq::buffer(frame), zmq::send_flags::dontwait));
  } catch (const zmq::error_t&) {
    return false;
  }
}

void ZmqTreeTransport::send(const std::string& to, tree::TreeMessage message) {
  proto::Envelope envelope;
  toProto(message, envelope.mutable_tree());
  std::string frame = wire::encode(envelope);
  Peer& p = peer(to);
  if (p.backlog.empty() && trySend(p, frame)) return;
  if (p.backlog.size() >= max_backlog_frames_) {
    frames_dropped_ += p.backlog.size() + 1;
    log_.warn("tree-backlog", "tree peer {} does not keep up: dropped {} queued frames", to,
              p.backlog.size() + 1);
    p.backlog.clear();
    return;
  }
  p.backlog.push_back(std::move(frame));
}

void ZmqTreeTransport::forget(const std::string& to) { peers_.erase(to); }

void ZmqTreeTransport::flush(std::chrono::steady_clock::time_point now) {
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& p = *it->second;
    while (!p.backlog.empty() && trySend(p, p.backlog.front())) p.backlog.pop_front();
    zmq::message_t ignored;
    while (p.socket.recv(ignored, zmq::recv_flags::dontwait)) {
      // Peers answer on our ROUTER; anything here is an error reply to a frame of ours.
    }
    if (p.backlog.empty() && now - p.last_used > kIdleClose) {
      it = peers_.erase(it);
    } else {
      ++it;
    }
  }
}

bool ZmqTreeTransport::backlogged() const {
  for (const auto& [address, p] : peers_) {
    if (!p->backlog.empty()) return true;
  }
  return false;
}

}  // namespace ftb::agent
