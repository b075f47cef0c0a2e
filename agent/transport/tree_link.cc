#include "agent/transport/tree_link.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <thread>

#include "agent/transport/tree_wire.h"
#include "client/clock.h"
#include "client/wire/codec.h"

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

ZmqTreeTransport::ZmqTreeTransport(ZmqContext& context, Poller& poller,
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
    slot = std::make_unique<Peer>();
    // A socket that cannot be opened or connected sends nothing: its frames
    // wait in the backlog until it overflows, and the link times out.
    auto open = [&]() -> Status {
      Result<ZmqSocket> dealer = ZmqSocket::open(context_, ZmqType::kDealer);
      if (!dealer.ok()) return dealer.status();
      slot->socket = std::move(dealer).value();
      ZmqSocket& s = slot->socket;
      if (Status st = s.set({{ZmqOption::kLinger, 200},  // let a Leave on shutdown go out
                             {ZmqOption::kSendHwm, 10000},
                             {ZmqOption::kReconnectInterval, 100},
                             {ZmqOption::kReconnectIntervalMax, 1000}});
          !st.ok()) {
        return st;
      }
      if (Status st = setCurve(s); !st.ok()) return st;
      return s.connect(address);
    };
    if (Status st = open(); !st.ok()) {
      log_.warn("tree-connect", "cannot connect to tree peer {}: {}", address, st.message());
    }
  }
  slot->last_used = Clock::real().steadyNow();
  return *slot;
}

Result<std::string> ZmqTreeTransport::listenForProbes(const std::string& endpoint, int rt_priority) {
  probe_context_ = std::make_unique<ZmqContext>();
  auto listen = [&]() -> Status {
    // Before the first socket: libzmq starts the I/O thread with it.
    const int refused = rt_priority > 0 ? tryRealtime(rt_priority) : 0;
    realtime_probes_ = rt_priority > 0 && refused == 0;
    if (refused != 0) realtime_refusal_ = std::strerror(refused);
    if (realtime_probes_) {
      if (Status s = probe_context_->setIoThreadScheduling(SCHED_RR, rt_priority); !s.ok()) return s;
    }
    Result<ZmqSocket> router = ZmqSocket::open(*probe_context_, ZmqType::kRouter);
    if (!router.ok()) return router.status();
    probe_listener_ = std::move(router).value();
    // Nothing is sent here (probes carry PINGs only) and nothing is read: a
    // peer that sends anyway has one message queued, no more. (No
    // ZMQ_MAXMSGSIZE: libzmq applies it to the PING commands too.)
    if (Status s = probe_listener_.set({{ZmqOption::kLinger, 0}, {ZmqOption::kReceiveHwm, 1}}); !s.ok()) {
      return s;
    }
    return probe_listener_.bind(endpoint);
  };
  if (Status s = listen(); !s.ok()) {
    return unavailable("cannot listen for tree probes on " + endpoint + ": " + s.message());
  }
  return probe_listener_.lastEndpoint();
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
  ZmqContext& context = own_listener ? *probe_context_ : context_;
  p.monitor_watch.reset();
  p.monitor = ZmqMonitor();  // an earlier probe's, if any
  p.probe.close();
  p.probe_target = target;
  auto connect = [&]() -> Status {
    Result<ZmqSocket> dealer = ZmqSocket::open(context, ZmqType::kDealer);
    if (!dealer.ok()) return dealer.status();
    p.probe = std::move(dealer).value();
    if (Status s = p.probe.set({{ZmqOption::kLinger, 0},
                                {ZmqOption::kReconnectInterval, 100},
                                {ZmqOption::kReconnectIntervalMax, 1000}});
        !s.ok()) {
      return s;
    }
    if (ping_.interval.count() > 0) {
      Status s = p.probe.set({{ZmqOption::kHeartbeatInterval, ping_.interval.count()},
                              {ZmqOption::kHeartbeatTimeout, ping_.timeout.count()}});
      if (!s.ok()) return s;
    }
    watch(context, p, address);
    // The probe listener carries no data and takes no keys; the agent's own
    // endpoint requires them when Curve is on.
    if (!own_listener) {
      if (Status s = setCurve(p.probe); !s.ok()) return s;
    }
    return p.probe.connect(target);
  };
  if (Status s = connect(); !s.ok()) {
    log_.warn("tree-connect", "cannot connect the probe of tree peer {} to {}: {}", address, target,
              s.message());
  }
}

Status ZmqTreeTransport::setCurve(ZmqSocket& s) {
  if (!curve_) return {};
  return s.setCurveClient(curve_->server_key, curve_->public_key, curve_->secret_key);
}

// Before connect(), so that no close of the connection goes unreported.
void ZmqTreeTransport::watch(ZmqContext& context, Peer& p, const std::string& address) {
  Result<ZmqMonitor> monitor = ZmqMonitor::watch(context, p.probe, {ZmqLinkEvent::kDisconnected});
  if (!monitor.ok()) {
    log_.warn("tree-monitor", "cannot watch the connection to tree peer {}: {}; only heartbeats "
              "will find it dead", address, monitor.status().message());
    return;
  }
  p.monitor = std::move(monitor).value();
  // Nothing to do when it fires: takeDisconnected reads every monitor each turn.
  Result<Poller::Registration> watched =
      poller_.watch(p.monitor.socket().descriptor(), EPOLLIN, [](uint32_t) {});
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
    bool disconnected = false;
    while (std::optional<ZmqMonitorEvent> event = p->monitor.next()) {
      disconnected |= event->kind == ZmqLinkEvent::kDisconnected;
    }
    if (disconnected) closed.push_back(address);
  }
  return closed;
}

bool ZmqTreeTransport::hasInput() {
  for (auto& [address, p] : peers_) {
    if (p->monitor.isOpen() && p->monitor.socket().readable()) return true;
  }
  return false;
}

bool ZmqTreeTransport::trySend(Peer& p, const std::string& frame) {
  return p.socket.isOpen() && p.socket.send(frame) == ZmqSent::kSent;
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
    // Peers answer on our ROUTER; anything here is an error reply to a frame of ours.
    while (p.socket.isOpen() && p.socket.receive(ignored_)) {
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
