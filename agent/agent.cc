#include "agent/agent.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

#include "agent/config/reload_request.h"
#include "agent/security/last_will.h"
#include "agent/security/origin_check.h"
#include "client/event.h"
#include "client/event_limits.h"
#include "client/names.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {
namespace {

constexpr int kMaxFramesPerTurn = 4096;  // then flush, ack and check timers

// How the descriptor limit is shared: the stream socket's connections may
// hold it less a quarter (at least 64) kept for everything else, and the TCP
// endpoint's connections half of that quarter, the rest being for tree links,
// files and libzmq's own, so that neither kind of client ever takes the last
// descriptor. 0: no limit.
struct ConnectionBudget {
  std::size_t stream = 0;
  std::size_t tcp = 0;
};
ConnectionBudget connectionBudget() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return {};
  const std::size_t soft = limit.rlim_cur;
  const std::size_t others = std::max<std::size_t>(64, soft / 4);
  return {.stream = soft > others ? soft - others : 1, .tcp = others / 2};
}

// The tighter of a configured limit and a budget, either 0 for none.
std::size_t tighter(std::size_t configured, std::size_t budget) {
  if (configured == 0) return budget;
  return budget == 0 ? configured : std::min(configured, budget);
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

// Whether something answers a status request at `endpoint` within half a second.
bool agentAnswersAt(const std::string& endpoint) {
  ZmqContext context;
  Result<ZmqSocket> probe = ZmqSocket::open(context, ZmqType::kDealer);
  if (!probe.ok()) return false;
  if (!probe->set({{ZmqOption::kLinger, 0}, {ZmqOption::kImmediate, 1},
                   {ZmqOption::kSendTimeout, 200}, {ZmqOption::kReceiveTimeout, 500}})
           .ok() ||
      !probe->connect(endpoint).ok()) {
    return false;
  }
  proto::Envelope status;
  status.mutable_status_request();
  ZmqMessage answer;
  return probe->send(wire::encode(status), false, /*wait=*/true) == ZmqSent::kSent &&
         probe->receive(answer, /*wait=*/true);
}

// Creates the directory that will hold an ipc:// socket.
Status prepareIpcPath(const std::string& endpoint) {
  const std::string prefix = "ipc://";
  if (endpoint.rfind(prefix, 0) != 0) return {};
  const std::filesystem::path path = endpoint.substr(prefix.size());
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return failedPrecondition("cannot create directory " + path.parent_path().string() +
                              " for " + endpoint + ": " + ec.message() +
                              " (choose another --ipc-endpoint)");
  }
  // A socket file left by a dead agent would make bind fail; a live agent would
  // answer on it, so refuse to steal it.
  if (std::filesystem::exists(path, ec)) {
    if (agentAnswersAt(endpoint)) {
      return failedPrecondition("another ftb-agent is already serving " + endpoint +
                                " (stop it or choose another --ipc-endpoint)");
    }
    std::filesystem::remove(path, ec);
  }
  return {};
}

}  // namespace

Agent::Agent(AgentConfig config, std::unique_ptr<Poller> poller)
    : config_(std::move(config)),
      poller_(std::move(poller)),
      started_(clock_.steadyNow()),
      history_(config_.history_events, config_.history_bytes,
               std::chrono::seconds(config_.history_max_age_s)),
      incarnation_(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(clock_.systemNow().time_since_epoch()).count())) {
  if (config_.name.empty()) config_.name = hostName();
}

Result<std::unique_ptr<Agent>> Agent::create(AgentConfig config) {
  auto poller = Poller::create();
  if (!poller.ok()) return poller.status();
  std::unique_ptr<Agent> agent(new Agent(std::move(config), std::move(poller).value()));
  auto socket = ZmqSocket::open(agent->context_, ZmqType::kRouter);
  if (!socket.ok()) return internalError("cannot open the agent socket: " + socket.status().message());
  agent->socket_ = std::move(socket).value();
  auto policy = NamespacePolicy::load(agent->config_.policy_file);
  if (!policy.ok()) return policy.status();
  agent->policy_ = std::move(policy).value();
  auto curve = CurveEndpoint::start(agent->config_, agent->context_);
  if (!curve.ok()) return curve.status();
  agent->curve_ = std::move(curve).value();
  // Agents link with the key pair they share: its public half is the server key.
  if (agent->curve_) agent->admission_.setAgentsCurveKey(agent->curve_->keys().server_key);
  if (treeWithoutAuthentication(agent->config_)) agent->admission_.admitAnyTreePeer();
  if (Status s = agent->bind(); !s.ok()) return s;
  Agent& a = *agent;
  auto tree = TreeBridge::start(
      {a.config_, a.sessions_, a.router_, a.history_, a.metrics_, a.counters_, a.log_, a.clock_},
      [&a](const std::string& name, proto::Severity severity, std::string payload, const TreeBridge::Tags& tags) {
        a.intake_.publishAgentEvent(name, severity, std::move(payload), tags);
      },
      {a.context_, *a.poller_, a.endpoints_, a.curve_.get(), a.incarnation_});
  if (!tree.ok()) return tree.status();
  a.tree_ = std::move(tree).value();
  return agent;
}

Status Agent::bind() {
  const auto hwm = static_cast<int64_t>(config_.socket_hwm);
  if (Status s = socket_.set({{ZmqOption::kRouterMandatory, 1},
                              {ZmqOption::kLinger, 0},
                              {ZmqOption::kSendHwm, hwm},
                              {ZmqOption::kReceiveHwm, hwm},
                              {ZmqOption::kMaxMessageSize, static_cast<int64_t>(maxClientFrameBytes(config_))}});
      !s.ok()) {
    return internalError("cannot configure the agent socket: " + s.message());
  }
  const ConnectionBudget budget = connectionBudget();
  if (const std::string& tcp = config_.tcp_endpoint; !tcp.empty() && tcp != "none") {
    const std::size_t most = tighter(config_.max_tcp_connections, budget.tcp);
    if (most < config_.max_tcp_connections) {
      spdlog::info("the TCP endpoint holds at most {} connections (max-tcp-connections {}): an eighth "
                   "of the descriptor limit",
                   most, config_.max_tcp_connections);
    }
    // Watching before the bind, so that every connection is counted.
    auto limit = TcpConnectionLimit::watch(
        context_, socket_, {.total = most, .per_host = config_.max_tcp_connections_per_host});
    if (!limit.ok()) return limit.status();
    tcp_limit_ = std::move(limit).value();
    // Nothing to do when it fires: the loop reads the monitor every turn.
    auto watched = poller_->watch(tcp_limit_.monitorSocket().descriptor(), EPOLLIN, [](uint32_t) {});
    if (!watched.ok()) return watched.status();
    tcp_limit_watch_ = std::move(watched).value();
  }
  for (const std::string& endpoint : {config_.ipc_endpoint, config_.tcp_endpoint}) {
    if (endpoint.empty() || endpoint == "none") continue;
    if (Status s = prepareIpcPath(endpoint); !s.ok()) return s;
    if (curve_ && endpoint.rfind("tcp://", 0) == 0) {
      if (Status s = curve_->secure(socket_); !s.ok()) return s;
    }
    if (Status s = socket_.bind(endpoint); !s.ok()) {
      return failedPrecondition("cannot listen on " + endpoint + ": " + s.message() +
                                " (is another agent running? choose another endpoint)");
    }
    endpoints_.push_back(socket_.lastEndpoint());
    tcp_limit_.addListener(endpoints_.back());
    if (endpoint.rfind("ipc://", 0) == 0) {
      // Every local user may connect (connecting needs write permission on the
      // socket): who may say what is the namespace policy's job, by uid.
      std::error_code ec;
      std::filesystem::permissions(endpoint.substr(6), std::filesystem::perms(0666), ec);
    }
  }
  // Nothing to do when it fires: the loop reads the socket every turn.
  Result<Poller::Registration> watched =
      poller_->watch(socket_.descriptor(), EPOLLIN, [](uint32_t) {});
  if (!watched.ok()) return watched.status();
  socket_watch_ = std::move(watched).value();
  if (const std::string local = localEndpoint(config_); !local.empty()) {
    auto server = LocalStreamServer::listen(local, maxClientFrameBytes(config_), config_.socket_hwm,
                                            {.per_uid = config_.max_connections_per_uid,
                                             .total = budget.stream},
                                            *poller_);
    if (!server.ok()) return server.status();
    local_ = std::move(server).value();
    endpoints_.push_back(local_->endpoint());
  }
  if (endpoints_.empty()) {
    return invalidArgument(
        "no endpoint to listen on: set --ipc-endpoint, --local-endpoint and/or --tcp-endpoint");
  }
  auto server = metrics::HttpServer::startIfSet(config_.metrics_listen, metrics_.registry());
  if (!server.ok()) return server.status();
  metrics_server_ = std::move(server).value();
  if (metrics_server_) spdlog::info("metrics at http://{}/metrics", metrics_server_->address());
  if (!config_.ready_file.empty()) {
    const std::string tmp = config_.ready_file + ".tmp";
    {
      std::ofstream out(tmp);
      for (const auto& e : endpoints_) out << e << "\n";
      if (metrics_server_) out << "http://" << metrics_server_->address() << "/metrics\n";
      if (!out) return failedPrecondition("cannot write --ready-file " + config_.ready_file);
    }
    std::filesystem::rename(tmp, config_.ready_file);
  }
  return {};
}

void Agent::run() {
  spdlog::info("ftb-agent {} '{}' serving on {}", wire::kVersion, config_.name,
               fmt::join(endpoints_, ", "));
  auto next_housekeeping = clock_.steadyNow();
  // The sockets are bound and the loop is about to turn: clients are accepted from here on.
  notifier_.ready(fmt::format("serving on {}", fmt::join(endpoints_, ", ")));
  while (!stop_.load()) {
    // Retry pending frames soon when some client is backed up; otherwise sleep on the socket.
    bool backed_up = false, ack_owed = false;
    for (auto& [id, s] : sessions_) {
      backed_up |= !s->outbound.empty();
      ack_owed |= s->ack_due;
    }
    auto wait = backed_up ? std::chrono::milliseconds(1)
                : ack_owed ? kAckDelay
                           : std::chrono::milliseconds(100);
    if (tree_) wait = tree_->maxWait(wait);
    wait = std::min(wait, notifier_.maxLoopSleep(wait));
    if (departures_.probing()) wait = std::min(wait, std::chrono::milliseconds(1));
    if (departures_.settling()) wait = std::chrono::milliseconds(0);
    // Input already taken in by ZeroMQ (its descriptor tells only of changes
    // since it was last read), or left by this turn's budget: no sleep.
    if (socket_.readable() || (local_ && local_->hasInput()) ||
        (tree_ && tree_->hasInput())) {
      wait = std::chrono::milliseconds(0);
    }
    // Marks exited processes, accepts stream connections and marks them
    // readable, writes what waits for them. A signal ends the wait early.
    poller_->wait(wait);
    tcp_limit_.poll();

    bool input_backlog = drainClients(client_source_, kMaxFramesPerTurn);
    if (local_) {
      input_backlog |= drainClients(*local_, kMaxFramesPerTurn);
      // Read to the end: a connection's frames before its EOF are handled first.
      for (auto& id : local_->takeClosed()) departures_.socketGone(std::move(id));
    }
    if (!input_backlog) departures_.settle();
    router_.flush();
    intake_.sendAcks();
    router_.sendQueued();

    const auto now = clock_.steadyNow();
    if (tree_) tree_->drive(now, input_backlog);
    router_.flush();  // deliveries of events that came from other agents
    if (now >= next_housekeeping) {
      clients_.housekeep();
      history_.prune(now);
      updateMetrics();
      next_housekeeping = now + std::chrono::milliseconds(100);
    }
    departures_.endTurn(now);
    if (reload_requests_.due()) {
      const std::vector<pid_t> waiting = reload_requests_.takeRequesters();  // asked before it began
      const int answer = reload();
      for (const pid_t pid : waiting) answerReloadRequest(pid, answer);
    }
    notifier_.feedWatchdog(now);  // only a loop that really turns keeps systemd's watchdog quiet
  }
  notifier_.stopping("shutting down");
  if (tree_) tree_->flush(clock_.steadyNow());  // event batches built this turn
  drainOnShutdown();
  // Children and parent repair at once instead of waiting for a timeout.
  if (tree_) tree_->leave("the agent is shutting down");
  spdlog::info("ftb-agent '{}' stopping", config_.name);
}

template <typename Source>
bool Agent::drainClients(Source& source, int budget) {
  for (int i = 0; i < budget; ++i) {
    const Receive got = source.tryReceive(inbound_);
    if (got == Receive::kEmpty) return false;
    if (got == Receive::kIncomplete) continue;
    if (inbound_.multipart) {
      counters_.set_bad_frames(counters_.bad_frames() + 1);
      log_.warn("multipart", "dropped a multi-part message: ftb messages are one frame");
      replies_.error(inbound_.routing_id, proto::Error::INVALID_ARGUMENT, "ftb messages are single-frame", 0);
      continue;
    }
    handleFrame(inbound_);
    // Tree heartbeats and timers also within a long turn: on a starved core a turn takes seconds.
    if (tree_ && i % 256 == 255) tree_->drive(clock_.steadyNow(), true);
  }
  return true;
}

void Agent::handleFrame(const InboundFrame& frame) {
  const std::string& routing_id = frame.routing_id;
  if (frame.credentials == nullptr && LocalStreamServer::isRoutingId(routing_id)) {
    // A ZeroMQ peer under a stream connection's id: answering would reach that client.
    counters_.set_bad_frames(counters_.bad_frames() + 1);
    log_.warn("routing-id", "dropped a frame from a ZeroMQ peer using a reserved routing id");
    return;
  }
  // Who sent it, from what the kernel and ZeroMQ say (never from the message).
  Sender sender;
  if (frame.credentials != nullptr) {
    sender.local = *frame.credentials;
  } else if (const char* address = frame.peer_address) {
    sender.local = parsePeerAddress(address);
    if (!sender.local) sender.address = address;
  }
  if (const char* user = frame.user_id; user != nullptr && !sender.local) {
    sender.curve_key = user;  // set by the ZAP handler: the admitted Curve key
    if (curve_) sender.curve_uid = curve_->uidOf(sender.curve_key);
  }
  sender.has_session = sessions_.contains(routing_id);
  // The most frequent frame is read without building an Envelope.
  if (wire::readPublishFrame(frame.body, published_)) {
    if (!admitted(routing_id, proto::Envelope::kPublish, sender, published_.request_id)) return;
    if (ClientSession* session = clients_.active(routing_id)) intake_.onPublish(*session, published_.events);
    return;
  }
  // The envelope lives while its frame is handled: on an arena emptied per
  // frame, its parts cost no allocation of their own.
  frame_arena_.Reset();
  auto* envelope = google::protobuf::Arena::CreateMessage<proto::Envelope>(&frame_arena_);
  if (Status s = wire::decodeInto(*envelope, frame.body.data(), frame.body.size()); !s.ok()) {
    counters_.set_bad_frames(counters_.bad_frames() + 1);
    log_.warn("bad-frame", "bad frame from a peer: {}", s.message());
    replies_.error(routing_id, wire::codeToWire(s.code()), s.message(), 0);
    return;
  }
  dispatch(routing_id, *envelope, sender);
}

bool Agent::admitted(const std::string& routing_id, proto::Envelope::BodyCase body_case,
                     const Sender& sender, uint64_t request_id) {
  Status admitted = admission_.admit(body_case, sender);
  if (admitted.ok()) return true;
  if (admitted.code() == Code::kNotFound) {
    counters_.set_bad_frames(counters_.bad_frames() + 1);
    log_.warn("unexpected-type", "unexpected message type {} from a peer", static_cast<int>(body_case));
  } else if (admitted.code() == Code::kPermissionDenied) {
    metrics_.refused(AgentMetrics::Refusal::kAdmission);
    log_.warn("admission", "refused a message: {}", admitted.message());
  }
  replies_.error(routing_id, wire::codeToWire(admitted.code()), admitted.message(), request_id);
  return false;
}

void Agent::dispatch(const std::string& routing_id, proto::Envelope& envelope,
                     const Sender& sender) {
  using B = proto::Envelope;
  if (!admitted(routing_id, envelope.body_case(), sender, envelope.request_id())) return;
  switch (envelope.body_case()) {
    case B::kHello: return clients_.onHello(routing_id, envelope, sender);
    case B::kStatusRequest:
    case B::kClientsRequest:
    case B::kHistoryQuery:
    case B::kTreeQuery: {
      // A peer that does not read its replies gets no more built: a history
      // reply is up to --history-bytes, and building it would cost the loop
      // (everyone's turn) for a reply that is dropped.
      if (!replies_.haveRoom(routing_id)) {
        log_.warn("reply-full", "did not answer a query of a peer whose replies pile up unread");
        return;
      }
      proto::Envelope answer = control_.answer(envelope, sender);
      return replies_.send(routing_id, answer);
    }
    case B::kTree: {
      if (tree_) tree_->onMessage(envelope);
      return;
    }
    case B::kGoodbye: return clients_.onGoodbye(routing_id);
    default: break;
  }
  // The rest needs a session (the table said so, and admit() checked it).
  ClientSession* session = clients_.active(routing_id);
  if (session == nullptr) return;
  switch (envelope.body_case()) {
    case B::kDeclare: return intake_.onDeclare(*session, envelope);
    case B::kPublish: {  // one the reader declined (handleFrame)
      published_.events.assign(envelope.publish().events().begin(), envelope.publish().events().end());
      return intake_.onPublish(*session, published_.events);
    }
    case B::kSubscribe: return clients_.onSubscribe(*session, envelope);
    case B::kUnsubscribe: return clients_.onUnsubscribe(*session, envelope);
    case B::kHeartbeat: return clients_.onHeartbeat(*session, envelope);
    default: return;
  }
}

}  // namespace ftb::agent
