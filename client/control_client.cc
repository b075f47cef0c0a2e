#include "client/control_client.h"

#include <array>
#include <optional>

#include "client/client.h"
#include "client/clock.h"
#include "client/transport/unix_endpoint.h"
#include "client/transport/zmq_socket.h"
#include "client/wire/codec.h"

namespace ftb {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kWhatToDo =
    "is ftb-agent running? (ftbctl --agent ENDPOINT or FTB_AGENT_ENDPOINT)";

bool validEndpoint(std::string_view endpoint) {
  if (endpoint.rfind("ipc://", 0) == 0) return endpoint.size() > 6;
  if (isUnixEndpoint(endpoint)) return unixSocketAddress(endpoint).ok();
  if (endpoint.rfind("tcp://", 0) == 0) {
    const std::string_view rest = endpoint.substr(6);
    const std::size_t colon = rest.rfind(':');
    return colon != std::string_view::npos && colon > 0 && colon + 1 < rest.size();
  }
  return false;
}

// A reply frame read for request `id`: the envelope when it answers this request
// (request_id 0 with an Error: the agent could not read our frame), nullopt for a
// late answer to an earlier call, an error when the bytes are no Envelope.
Result<std::optional<proto::Envelope>> replyTo(uint64_t id, const void* data, std::size_t size,
                                               const std::string& endpoint) {
  Result<proto::Envelope> answer = wire::decode(data, size);
  if (!answer.ok()) {
    return Status(answer.status().code(), "the ftb-agent at " + endpoint +
                                              " sent a reply this client cannot read: " +
                                              answer.status().message());
  }
  const bool ours = answer->request_id() == id || (answer->request_id() == 0 && answer->has_error());
  if (!ours) return std::optional<proto::Envelope>();
  return std::optional<proto::Envelope>(std::move(answer).value());
}

Status connectedButSilent(const std::string& endpoint, milliseconds timeout) {
  return deadlineExceeded("the ftb-agent at " + endpoint + " is connected but did not answer within " +
                          std::to_string(timeout.count()) +
                          " ms: it may be overloaded; retry with a larger --timeout-ms or check "
                          "its log");
}

}  // namespace

struct ControlClient::Impl {
  std::string endpoint;
  CurveClientKeys curve;
  ZmqContext context;
  ZmqSocket socket;
  // Refused connections and handshakes, so that "nothing is listening" is
  // answered at once instead of after the whole timeout.
  ZmqMonitor monitor;
  uint64_t next_request = 1;
  bool connected = false;  // the ZeroMQ handshake with the agent has succeeded
  // unix:// endpoints: the agent's own stream socket instead of the DEALER.
  std::unique_ptr<AgentLink> stream;

  Status open();
  // Reads one pending monitor event and updates `connected`; nullopt when none.
  std::optional<ZmqLinkEvent> nextLinkEvent();
  Result<proto::Envelope> call(proto::Envelope request, milliseconds timeout);
  Result<proto::Envelope> callOverStream(const proto::Envelope& request, uint64_t id,
                                         milliseconds timeout);
  Result<proto::Envelope> callOrError(proto::Envelope request, milliseconds timeout);
  // callOrError(), and an answer of the `expected` kind; `what` names the
  // request in the error about any other answer.
  Result<proto::Envelope> ask(proto::Envelope request, proto::Envelope::BodyCase expected,
                              std::string_view what, milliseconds timeout);
};

Status ControlClient::Impl::open() {
  if (isUnixEndpoint(endpoint)) {
    Result<std::unique_ptr<AgentLink>> link = AgentLink::create(endpoint, {});
    if (!link.ok()) return link.status();
    stream = std::move(link).value();
    return {};
  }
  Result<ZmqSocket> dealer = ZmqSocket::open(context, ZmqType::kDealer);
  if (!dealer.ok()) return dealer.status();
  socket = std::move(dealer).value();
  if (Status s = socket.set({{ZmqOption::kLinger, 0}, {ZmqOption::kReconnectInterval, 100}}); !s.ok()) {
    return s;
  }
  Result<ZmqMonitor> watched = ZmqMonitor::watch(
      context, socket,
      {ZmqLinkEvent::kConnected, ZmqLinkEvent::kConnectRetried, ZmqLinkEvent::kDisconnected,
       ZmqLinkEvent::kNotZmtp, ZmqLinkEvent::kAuthRefused});
  if (!watched.ok()) return watched.status();
  monitor = std::move(watched).value();
  if (curve.enabled() && endpoint.rfind("tcp://", 0) == 0) {
    Status s = socket.setCurveClient(curve.server_key, curve.public_key, curve.secret_key);
    if (!s.ok()) return s;
  }
  return socket.connect(endpoint);
}

std::optional<ZmqLinkEvent> ControlClient::Impl::nextLinkEvent() {
  std::optional<ZmqMonitorEvent> event = monitor.next();
  if (!event) return std::nullopt;
  if (event->kind == ZmqLinkEvent::kConnected) connected = true;
  if (event->kind == ZmqLinkEvent::kDisconnected) connected = false;
  return event->kind;
}

Result<proto::Envelope> ControlClient::Impl::call(proto::Envelope request, milliseconds timeout) {
  const uint64_t id = next_request++;
  request.set_request_id(id);
  if (stream) return callOverStream(request, id, timeout);
  // Link changes since the last call (the agent restarted ...) only update
  // `connected`: they say nothing yet about this request. A refusal swallowed
  // here repeats within reconnect_ivl (100 ms) while nothing listens.
  while (nextLinkEvent()) {
  }
  const std::string frame = wire::encode(request);
  if (socket.send(frame) != ZmqSent::kSent) {
    return unavailable("cannot queue a request for the ftb-agent at " + endpoint +
                       " (its connection is full): retry, or check the agent");
  }
  const auto deadline = Clock::real().steadyNow() + timeout;
  for (auto now = Clock::real().steadyNow(); now < deadline; now = Clock::real().steadyNow()) {
    std::array<ZmqPollItem, 2> items{{{.socket = &socket}, {.socket = &monitor.socket()}}};
    const auto left = std::chrono::ceil<milliseconds>(deadline - now);
    // A signal for the host program ends the wait early; the deadline holds.
    if (!zmqPoll(items, left)) continue;
    if (items[0].readable) {
      for (ZmqMessage reply; socket.receive(reply);) {
        Result<std::optional<proto::Envelope>> answer =
            replyTo(id, reply.bytes().data(), reply.bytes().size(), endpoint);
        if (!answer.ok()) return answer.status();
        if (*answer) return std::move(**answer);
      }
    }
    while (std::optional<ZmqLinkEvent> link = nextLinkEvent()) {
      switch (*link) {
        case ZmqLinkEvent::kConnectRetried:  // connect() failed; libzmq retries
          if (connected) break;  // a reconnect after a drop: kDown said so already
          return unavailable("nothing is listening at " + endpoint +
                             " (connection refused or no such socket): " + std::string(kWhatToDo));
        case ZmqLinkEvent::kDisconnected:
          return unavailable("the ftb-agent at " + endpoint +
                             " closed the connection before answering: " + std::string(kWhatToDo));
        case ZmqLinkEvent::kNotZmtp:
          if (endpoint.rfind("tcp://", 0) == 0) {
            return unavailable(
                endpoint + " accepted the connection but the ZeroMQ handshake failed: it is not "
                           "an ftb-agent, or its CurveZMQ setting differs from this client's "
                           "(an agent with --curve-key-file needs ftbctl --curve-key-file and "
                           "the right --curve-server-key, docs/SECURITY.md)");
          }
          return unavailable(endpoint +
                             " accepted the connection but is not an ftb-agent (the ZeroMQ "
                             "handshake failed): check the endpoint (ftbctl --agent ENDPOINT or "
                             "FTB_AGENT_ENDPOINT)");
        case ZmqLinkEvent::kAuthRefused:  // the agent's ZAP handler said no
          return Status(Code::kPermissionDenied,
                        "the ftb-agent at " + endpoint +
                            " refused this client's Curve key: list its public key in the "
                            "agent's --curve-authorized-keys file (docs/SECURITY.md)");
        default: break;
      }
    }
  }
  if (connected) return connectedButSilent(endpoint, timeout);
  return unavailable("no ftb-agent answered at " + endpoint + " within " +
                     std::to_string(timeout.count()) + " ms: " + std::string(kWhatToDo));
}

Result<proto::Envelope> ControlClient::Impl::callOverStream(const proto::Envelope& request,
                                                            uint64_t id, milliseconds timeout) {
  for (auto change = stream->takeChange(); change != AgentLink::Change::kNone;
       change = stream->takeChange()) {
    connected = change == AgentLink::Change::kConnected;
  }
  if (!connected) {  // connect again now rather than at the link's next retry
    stream->reopen();
    connected = stream->takeChange() == AgentLink::Change::kConnected;
    if (!connected) {
      return unavailable("nothing is listening at " + endpoint +
                         " (connection refused or no such socket): " + std::string(kWhatToDo));
    }
  }
  proto::Envelope copy = request;
  if (!stream->send(wire::encode(copy))) {
    return unavailable("cannot queue a request for the ftb-agent at " + endpoint +
                       " (its connection is full): retry, or check the agent");
  }
  const auto deadline = Clock::real().steadyNow() + timeout;
  for (auto now = Clock::real().steadyNow(); now < deadline; now = Clock::real().steadyNow()) {
    stream->prepareWait(-1, false);
    stream->wait(std::chrono::ceil<milliseconds>(deadline - now));  // a signal: look again
    stream->afterWait();
    while (std::optional<std::string_view> reply = stream->receive()) {
      Result<std::optional<proto::Envelope>> answer = replyTo(id, reply->data(), reply->size(), endpoint);
      if (!answer.ok()) return answer.status();
      if (*answer) return std::move(**answer);
    }
    if (stream->takeChange() == AgentLink::Change::kDisconnected) {
      connected = false;
      return unavailable("the ftb-agent at " + endpoint +
                         " closed the connection before answering: " + std::string(kWhatToDo));
    }
  }
  return connectedButSilent(endpoint, timeout);
}

// call(), with the agent's Error replies turned into a Status.
Result<proto::Envelope> ControlClient::Impl::callOrError(proto::Envelope request,
                                                         milliseconds timeout) {
  Result<proto::Envelope> answer = call(std::move(request), timeout);
  if (answer.ok() && answer->has_error()) return wire::statusFromError(answer->error());
  return answer;
}

Result<proto::Envelope> ControlClient::Impl::ask(proto::Envelope request,
                                                 proto::Envelope::BodyCase expected,
                                                 std::string_view what, milliseconds timeout) {
  Result<proto::Envelope> answer = callOrError(std::move(request), timeout);
  if (answer.ok() && answer->body_case() != expected) {
    return internalError("the ftb-agent at " + endpoint + " answered " + std::string(what) +
                         " with something else");
  }
  return answer;
}

ControlClient::ControlClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ControlClient::ControlClient(ControlClient&&) noexcept = default;
ControlClient& ControlClient::operator=(ControlClient&&) noexcept = default;
ControlClient::~ControlClient() = default;

Result<ControlClient> ControlClient::connect(std::string endpoint) {
  return connect(std::move(endpoint), CurveClientKeys{});
}

Result<ControlClient> ControlClient::connect(std::string endpoint, const CurveClientKeys& curve) {
  if (endpoint.empty()) endpoint = defaultAgentEndpoint();
  if (Status s = checkEndpoint(endpoint); !s.ok()) return s;
  if (curve.enabled() && (curve.server_key.size() != 40 || curve.public_key.size() != 40 ||
                          curve.secret_key.size() != 40)) {
    return invalidArgument(
        "the Curve server key, public key and secret key must all be 40-character Z85 text");
  }
  auto impl = std::make_unique<Impl>();
  impl->endpoint = endpoint;
  impl->curve = curve;
  if (Status s = impl->open(); !s.ok()) {
    return invalidArgument("cannot connect to agent endpoint '" + endpoint + "': " + s.message());
  }
  return ControlClient(std::move(impl));
}

Status ControlClient::checkEndpoint(std::string_view endpoint) {
  if (validEndpoint(endpoint)) return {};
  // A unix:// endpoint's fault is its path (empty or too long), not its form.
  if (isUnixEndpoint(endpoint)) return unixSocketAddress(endpoint).status();
  return invalidArgument("agent endpoint '" + cutForMessage(endpoint) +
                         "' is not ipc://PATH, unix://PATH or tcp://HOST:PORT");
}

const std::string& ControlClient::endpoint() const { return impl_->endpoint; }

Result<proto::StatusReply> ControlClient::status(milliseconds timeout) {
  proto::Envelope request;
  request.mutable_status_request();
  Result<proto::Envelope> answer =
      impl_->ask(std::move(request), proto::Envelope::kStatusReply, "a status request", timeout);
  if (!answer.ok()) return answer.status();
  return std::move(*answer->mutable_status_reply());
}

Result<proto::ClientsReply> ControlClient::clients(milliseconds timeout) {
  proto::Envelope request;
  request.mutable_clients_request();
  Result<proto::Envelope> answer =
      impl_->ask(std::move(request), proto::Envelope::kClientsReply, "a clients request", timeout);
  if (!answer.ok()) return answer.status();
  return std::move(*answer->mutable_clients_reply());
}

Result<proto::TreeInfo> ControlClient::tree(milliseconds timeout) {
  proto::Envelope request;
  request.mutable_tree_query();
  Result<proto::Envelope> answer =
      impl_->ask(std::move(request), proto::Envelope::kTreeInfo, "a tree query", timeout);
  if (!answer.ok()) return answer.status();
  return std::move(*answer->mutable_tree_info());
}

Result<proto::HistoryReply> ControlClient::history(std::string_view filter, uint32_t last_n,
                                                   milliseconds timeout) {
  return history(filter, last_n, HistoryBounds{}, timeout);
}

Result<proto::HistoryReply> ControlClient::history(std::string_view filter, uint32_t last_n,
                                                   const HistoryBounds& bounds,
                                                   milliseconds timeout) {
  proto::Envelope request;
  request.mutable_history_query()->set_filter(std::string(filter));
  request.mutable_history_query()->set_last_n(last_n);
  request.mutable_history_query()->set_since_unix_ns(bounds.since_unix_ns);
  request.mutable_history_query()->set_until_unix_ns(bounds.until_unix_ns);
  Result<proto::Envelope> answer =
      impl_->ask(std::move(request), proto::Envelope::kHistoryReply, "a history query", timeout);
  if (!answer.ok()) return answer.status();
  return std::move(*answer->mutable_history_reply());
}

}  // namespace ftb
