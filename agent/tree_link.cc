#include "agent/tree_link.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <thread>

#include "agent/tree_wire.h"
#include "client/clock.h"
#include "client/codec.h"

namespace ftb::agent {
namespace {

constexpr auto kIdleClose = std::chrono::seconds(30);

// Whether a thread of this process may run under SCHED_RR at `priority` (root,
// CAP_SYS_NICE, or RLIMIT_RTPRIO; not under systemd's RestrictRealtime=yes).
// Tried on a thread of its own that then ends: libzmq aborts if it cannot set
// the policy it was given, so it is given one only after this succeeded.
// Returns 0 or the error.
int tryRealtime(int priority) {
  int error = 0;
  std::thread([&] {
    sched_param param{};
    param.sched_priority = priority;
    error = pthread_setschedparam(pthread_self(), SCHED_RR, &param);
  }).join();
  return error;
}

}  // namespace

ZmqTreeTransport::ZmqTreeTransport(zmq::context_t& context, Poller& poller,
                                   std::size_t max_backlog_frames, LinkPing ping,
                                   std::optional<CurveClientKeys> curve)
    : context_(context),
      poller_(poller),
      max_backlog_frames_(max_backlog_frames),
      ping_(ping),
      curve_(std::move(curve)) {}

ZmqTreeTransport::Peer& ZmqTreeTransport::peer(const std::string& address) {
  auto& slot = peers_[address];
  if (!slot) {
    slot = std::make_unique<Peer>(Peer{zmq::socket_t(context_, zmq::socket_type::dealer), {}, {}, {}, {}, {}, {}});
    zmq::socket_t& s = slot->socket;
    s.set(zmq::sockopt::linger, 200);  // let a Leave on shutdown go out
    s.set(zmq::sockopt::sndhwm, 10000);
    s.set(zmq::sockopt::reconnect_ivl, 100);
    s.set(zmq::sockopt::reconnect_ivl_max, 1000);
    try {
      setCurve(s);
      s.connect(address);
    } catch (const zmq::error_t& e) {
      log_.warn("tree-connect", "cannot connect to tree peer {}: {}", address, e.what());
    }
  }
  slot->last_used = Clock::real().steadyNow();
  return *slot;
}

Result<std::string> ZmqTreeTransport::listenForProbes(const std::string& endpoint, int rt_priority) {
  try {
    probe_context_ = std::make_unique<zmq::context_t>(1);
    // Before the first socket: libzmq starts the I/O thread with it.
    const int refused = rt_priority > 0 ? tryRealtime(rt_priority) : 0;
    realtime_probes_ = rt_priority > 0 && refused == 0;
    if (refused != 0) realtime_refusal_ = std::strerror(refused);
    if (realtime_probes_) {
      probe_context_->set(zmq::ctxopt::thread_sched_policy, SCHED_RR);
      probe_context_->set(zmq::ctxopt::thread_priority, rt_priority);
    }
    probe_listener_ = zmq::socket_t(*probe_context_, zmq::socket_type::router);
    probe_listener_.set(zmq::sockopt::linger, 0);
    // Nothing is sent here (probes carry PINGs only) and nothing is read: a
    // peer that sends anyway has one message queued, no more. (No
    // ZMQ_MAXMSGSIZE: libzmq applies it to the PING commands too.)
    probe_listener_.set(zmq::sockopt::rcvhwm, 1);
    probe_listener_.bind(endpoint);
    return probe_listener_.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    return unavailable("cannot listen for tree probes on " + endpoint + ": " + e.what());
  }
}

void ZmqTreeTransport::learnProbe(const std::string& address, const std::string& probe) {
  auto it = peers_.find(address);
  if (it == peers_.end()) return;  // not talked to yet: learnt again from its next message
  // Without a probe context of our own (PINGs off), or a listener of the
  // peer's, the probe goes to the peer's address: its close still tells a death.
  const std::string target = probe.empty() || !probe_context_ ? address : probe;
  if (it->second->probe_target != target) connectProbe(*it->second, address, target);
}

void ZmqTreeTransport::connectProbe(Peer& p, const std::string& address, const std::string& target) {
  const bool own_listener = target != address;
  zmq::context_t& context = own_listener ? *probe_context_ : context_;
  p.monitor_watch.reset();
  p.monitor = zmq::socket_t();  // an earlier probe's, if any
  p.probe = zmq::socket_t(context, zmq::socket_type::dealer);
  p.probe_target = target;
  p.probe.set(zmq::sockopt::linger, 0);
  p.probe.set(zmq::sockopt::reconnect_ivl, 100);
  p.probe.set(zmq::sockopt::reconnect_ivl_max, 1000);
  if (ping_.interval.count() > 0) {
    p.probe.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(ping_.interval.count()));
    p.probe.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(ping_.timeout.count()));
  }
  watch(context, p, address);
  try {
    // The probe listener carries no data and takes no keys; the agent's own
    // endpoint requires them when Curve is on.
    if (!own_listener) setCurve(p.probe);
    p.probe.connect(target);
  } catch (const zmq::error_t& e) {
    log_.warn("tree-connect", "cannot connect the probe of tree peer {} to {}: {}", address, target, e.what());
  }
}

void ZmqTreeTransport::setCurve(zmq::socket_t& s) {
  if (!curve_) return;
  s.set(zmq::sockopt::curve_serverkey, curve_->server_public);
  s.set(zmq::sockopt::curve_publickey, curve_->public_key);
  s.set(zmq::sockopt::curve_secretkey, curve_->secret_key);
}

// Before connect(), so that no close of the connection goes unreported.
void ZmqTreeTransport::watch(zmq::context_t& context, Peer& p, const std::string& address) {
  const std::string endpoint = "inproc://ftb-tree-link-monitor-" +
                               std::to_string(reinterpret_cast<uintptr_t>(this)) + "-" +
                               std::to_string(++monitors_made_);
  if (zmq_socket_monitor(p.probe.handle(), endpoint.c_str(), ZMQ_EVENT_DISCONNECTED) != 0) {
    log_.warn("tree-monitor", "cannot watch the connection to tree peer {}: {}; only heartbeats "
              "will find it dead", address, zmq_strerror(zmq_errno()));
    return;
  }
  p.monitor = zmq::socket_t(context, zmq::socket_type::pair);
  p.monitor.set(zmq::sockopt::linger, 0);
  p.monitor.connect(endpoint);
  // Nothing to do when it fires: takeDisconnected reads every monitor each turn.
  Result<Poller::Registration> watched =
      poller_.watch(p.monitor.get(zmq::sockopt::fd), EPOLLIN, [](uint32_t) {});
  if (watched.ok()) {
    p.monitor_watch = std::move(watched).value();
  } else {
    log_.warn("tree-monitor", "cannot watch the monitor of tree peer {}: {}; its close is noticed "
              "within a loop turn", address, watched.status().message());
  }
}

std::vector<std::string> ZmqTreeTransport::takeDisconnected() {
  std::vector<std::string> closed;
  for (auto& [address, p] : peers_) {
    if (!p->monitor) continue;
    bool disconnected = false;
    zmq::message_t event;
    // Each event is two frames: (uint16 event, uint32 value), then the endpoint.
    while (p->monitor.recv(event, zmq::recv_flags::dontwait)) {
      uint16_t id = 0;
      if (event.size() >= sizeof id) std::memcpy(&id, event.data(), sizeof id);
      disconnected |= id == ZMQ_EVENT_DISCONNECTED;
      while (event.more() && p->monitor.recv(event, zmq::recv_flags::dontwait)) {
      }
    }
    if (disconnected) closed.push_back(address);
  }
  return closed;
}

bool ZmqTreeTransport::hasInput() {
  for (auto& [address, p] : peers_) {
    if (p->monitor && (p->monitor.get(zmq::sockopt::events) & ZMQ_POLLIN) != 0) return true;
  }
  return false;
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
