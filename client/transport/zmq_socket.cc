#include "client/transport/zmq_socket.h"

#include <zmq.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace ftb {
namespace {

static_assert(sizeof(zmq_msg_t) <= 64 && alignof(zmq_msg_t) <= 8, "ZmqMessage::message_ too small");

zmq_msg_t* msg(unsigned char* storage) { return reinterpret_cast<zmq_msg_t*>(storage); }
const zmq_msg_t* msg(const unsigned char* storage) {
  return reinterpret_cast<const zmq_msg_t*>(storage);
}

Status failure(int error) {
  const std::string why = zmq_strerror(error);
  switch (error) {
    case EINVAL:
    case EPROTONOSUPPORT:
    case ENOCOMPATPROTO:
      return invalidArgument(why);
    case EADDRINUSE:
    case EADDRNOTAVAIL:
    case ENODEV:
    case ENOENT:
    case EACCES:
      return failedPrecondition(why);
    default:
      return internalError(why);
  }
}

Status lastFailure() { return failure(zmq_errno()); }

int socketType(ZmqType type) {
  switch (type) {
    case ZmqType::kRouter: return ZMQ_ROUTER;
    case ZmqType::kDealer: return ZMQ_DEALER;
    case ZmqType::kRep: return ZMQ_REP;
    case ZmqType::kPair: return ZMQ_PAIR;
  }
  return ZMQ_PAIR;
}

struct IntOption {
  int id;
  bool wide;  // int64_t rather than int
};

IntOption intOption(ZmqOption option) {
  switch (option) {
    case ZmqOption::kLinger: return {ZMQ_LINGER, false};
    case ZmqOption::kSendHwm: return {ZMQ_SNDHWM, false};
    case ZmqOption::kReceiveHwm: return {ZMQ_RCVHWM, false};
    case ZmqOption::kSendTimeout: return {ZMQ_SNDTIMEO, false};
    case ZmqOption::kReceiveTimeout: return {ZMQ_RCVTIMEO, false};
    case ZmqOption::kRouterMandatory: return {ZMQ_ROUTER_MANDATORY, false};
    case ZmqOption::kImmediate: return {ZMQ_IMMEDIATE, false};
    case ZmqOption::kReconnectInterval: return {ZMQ_RECONNECT_IVL, false};
    case ZmqOption::kReconnectIntervalMax: return {ZMQ_RECONNECT_IVL_MAX, false};
    case ZmqOption::kHeartbeatInterval: return {ZMQ_HEARTBEAT_IVL, false};
    case ZmqOption::kHeartbeatTimeout: return {ZMQ_HEARTBEAT_TIMEOUT, false};
    case ZmqOption::kMaxMessageSize: return {ZMQ_MAXMSGSIZE, true};
    case ZmqOption::kCurveServer: return {ZMQ_CURVE_SERVER, false};
  }
  return {-1, false};
}

int textOption(ZmqTextOption option) {
  switch (option) {
    case ZmqTextOption::kCurveServerKey: return ZMQ_CURVE_SERVERKEY;
    case ZmqTextOption::kCurvePublicKey: return ZMQ_CURVE_PUBLICKEY;
    case ZmqTextOption::kCurveSecretKey: return ZMQ_CURVE_SECRETKEY;
    case ZmqTextOption::kZapDomain: return ZMQ_ZAP_DOMAIN;
    case ZmqTextOption::kRoutingId: return ZMQ_ROUTING_ID;
  }
  return -1;
}

uint16_t monitorMask(ZmqLinkEvent event) {
  switch (event) {
    case ZmqLinkEvent::kConnected: return ZMQ_EVENT_HANDSHAKE_SUCCEEDED;
    case ZmqLinkEvent::kConnectRetried: return ZMQ_EVENT_CONNECT_RETRIED;
    case ZmqLinkEvent::kDisconnected: return ZMQ_EVENT_DISCONNECTED;
    case ZmqLinkEvent::kNotZmtp:
      return ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL;
    case ZmqLinkEvent::kAuthRefused: return ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    case ZmqLinkEvent::kAccepted: return ZMQ_EVENT_ACCEPTED;
    case ZmqLinkEvent::kOther: return 0;
  }
  return 0;
}

ZmqLinkEvent linkEvent(uint16_t id) {
  switch (id) {
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED: return ZmqLinkEvent::kConnected;
    case ZMQ_EVENT_CONNECT_RETRIED: return ZmqLinkEvent::kConnectRetried;
    case ZMQ_EVENT_DISCONNECTED: return ZmqLinkEvent::kDisconnected;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: return ZmqLinkEvent::kNotZmtp;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: return ZmqLinkEvent::kAuthRefused;
    case ZMQ_EVENT_ACCEPTED: return ZmqLinkEvent::kAccepted;
    default: return ZmqLinkEvent::kOther;
  }
}

}  // namespace

ZmqContext::ZmqContext() : context_(zmq_ctx_new()) {}

ZmqContext::~ZmqContext() {
  while (zmq_ctx_term(context_) != 0 && zmq_errno() == EINTR) {
  }
}

Status ZmqContext::setIoThreadScheduling(int policy, int priority) {
  if (zmq_ctx_set(context_, ZMQ_THREAD_SCHED_POLICY, policy) != 0 ||
      zmq_ctx_set(context_, ZMQ_THREAD_PRIORITY, priority) != 0) {
    return lastFailure();
  }
  return {};
}

ZmqMessage::ZmqMessage() { zmq_msg_init(msg(message_)); }
ZmqMessage::~ZmqMessage() { zmq_msg_close(msg(message_)); }

ZmqMessage::ZmqMessage(ZmqMessage&& other) noexcept {
  zmq_msg_init(msg(message_));
  zmq_msg_move(msg(message_), msg(other.message_));
}

ZmqMessage& ZmqMessage::operator=(ZmqMessage&& other) noexcept {
  if (this != &other) zmq_msg_move(msg(message_), msg(other.message_));
  return *this;
}

std::string_view ZmqMessage::bytes() const {
  zmq_msg_t* m = const_cast<zmq_msg_t*>(msg(message_));  // libzmq's accessors take no const
  return {static_cast<const char*>(zmq_msg_data(m)), zmq_msg_size(m)};
}

bool ZmqMessage::more() const { return zmq_msg_more(msg(message_)) != 0; }

const char* ZmqMessage::property(const char* name) const {
  return zmq_msg_gets(msg(message_), name);
}

Result<ZmqSocket> ZmqSocket::open(ZmqContext& context, ZmqType type) {
  void* socket = zmq_socket(context.context_, socketType(type));
  if (socket == nullptr) return lastFailure();
  return ZmqSocket(socket);
}

ZmqSocket::ZmqSocket(ZmqSocket&& other) noexcept : socket_(std::exchange(other.socket_, nullptr)) {}

ZmqSocket& ZmqSocket::operator=(ZmqSocket&& other) noexcept {
  if (this != &other) {
    close();
    socket_ = std::exchange(other.socket_, nullptr);
  }
  return *this;
}

ZmqSocket::~ZmqSocket() { close(); }

void ZmqSocket::close() {
  if (socket_ != nullptr) zmq_close(std::exchange(socket_, nullptr));
}

Status ZmqSocket::set(ZmqOption option, int64_t value) {
  const IntOption o = intOption(option);
  const int narrow = static_cast<int>(value);
  const int rc = o.wide ? zmq_setsockopt(socket_, o.id, &value, sizeof value)
                        : zmq_setsockopt(socket_, o.id, &narrow, sizeof narrow);
  return rc == 0 ? Status() : lastFailure();
}

Status ZmqSocket::set(std::initializer_list<std::pair<ZmqOption, int64_t>> options) {
  for (const auto& [option, value] : options) {
    if (Status s = set(option, value); !s.ok()) return s;
  }
  return {};
}

Status ZmqSocket::set(ZmqTextOption option, const std::string& value) {
  return zmq_setsockopt(socket_, textOption(option), value.data(), value.size()) == 0 ? Status()
                                                                                       : lastFailure();
}

Status ZmqSocket::setCurveClient(const std::string& server_key, const std::string& public_key,
                                 const std::string& secret_key) {
  if (Status s = set(ZmqTextOption::kCurveServerKey, server_key); !s.ok()) return s;
  if (Status s = set(ZmqTextOption::kCurvePublicKey, public_key); !s.ok()) return s;
  return set(ZmqTextOption::kCurveSecretKey, secret_key);
}

Status ZmqSocket::bind(const std::string& endpoint) {
  return zmq_bind(socket_, endpoint.c_str()) == 0 ? Status() : lastFailure();
}

Status ZmqSocket::connect(const std::string& endpoint) {
  return zmq_connect(socket_, endpoint.c_str()) == 0 ? Status() : lastFailure();
}

std::string ZmqSocket::lastEndpoint() const {
  std::array<char, 1024> text{};
  std::size_t size = text.size();
  if (zmq_getsockopt(socket_, ZMQ_LAST_ENDPOINT, text.data(), &size) != 0) return "";
  return text.data();
}

int ZmqSocket::descriptor() const {
  int fd = -1;
  std::size_t size = sizeof fd;
  if (zmq_getsockopt(socket_, ZMQ_FD, &fd, &size) != 0) return -1;
  return fd;
}

bool ZmqSocket::readable() const {
  int events = 0;
  std::size_t size = sizeof events;
  if (zmq_getsockopt(socket_, ZMQ_EVENTS, &events, &size) != 0) return false;
  return (events & ZMQ_POLLIN) != 0;
}

ZmqSent ZmqSocket::send(std::string_view part, bool more, bool wait) {
  const int flags = (more ? ZMQ_SNDMORE : 0) | (wait ? 0 : ZMQ_DONTWAIT);
  if (zmq_send(socket_, part.data(), part.size(), flags) >= 0) return ZmqSent::kSent;
  switch (zmq_errno()) {
    case EAGAIN: return ZmqSent::kWouldBlock;
    case EHOSTUNREACH: return ZmqSent::kNoSuchPeer;
    default: return ZmqSent::kFailed;
  }
}

bool ZmqSocket::receive(ZmqMessage& into, bool wait) {
  return zmq_msg_recv(msg(into.message_), socket_, wait ? 0 : ZMQ_DONTWAIT) >= 0;
}

std::string ZmqSocket::lastError() { return zmq_strerror(zmq_errno()); }

Result<ZmqMonitor> ZmqMonitor::watch(ZmqContext& context, ZmqSocket& socket,
                                     std::initializer_list<ZmqLinkEvent> events) {
  static std::atomic<uint64_t> monitors{0};
  const std::string endpoint = "inproc://ftb-monitor-" + std::to_string(monitors.fetch_add(1));
  uint16_t mask = 0;
  for (ZmqLinkEvent e : events) mask |= monitorMask(e);
  if (zmq_socket_monitor(socket.socket_, endpoint.c_str(), mask) != 0) return lastFailure();
  Result<ZmqSocket> pair = ZmqSocket::open(context, ZmqType::kPair);
  if (!pair.ok()) return pair.status();
  if (Status s = pair->set(ZmqOption::kLinger, 0); !s.ok()) return s;
  if (Status s = pair->connect(endpoint); !s.ok()) return s;
  ZmqMonitor monitor;
  monitor.events_ = std::move(pair).value();
  return monitor;
}

std::optional<ZmqMonitorEvent> ZmqMonitor::next() {
  // Each event is two parts: (uint16 event, int32 value), then the endpoint.
  if (!events_.isOpen() || !events_.receive(part_)) return std::nullopt;
  uint16_t id = 0;
  int32_t value = 0;
  const std::string_view head = part_.bytes();
  if (head.size() >= sizeof id + sizeof value) {
    std::memcpy(&id, head.data(), sizeof id);
    std::memcpy(&value, head.data() + sizeof id, sizeof value);
  }
  ZmqMonitorEvent event{.kind = linkEvent(id), .value = value, .endpoint = {}};
  if (part_.more() && events_.receive(part_)) event.endpoint = part_.bytes();
  while (part_.more() && events_.receive(part_)) {
  }
  return event;
}

bool zmqPoll(std::span<ZmqPollItem> items, std::chrono::milliseconds timeout) {
  // Up to 8 items without an allocation: the SDK's I/O loop polls three per turn.
  std::array<zmq_pollitem_t, 8> few{};
  std::vector<zmq_pollitem_t> many;
  zmq_pollitem_t* polled = few.data();
  if (items.size() > few.size()) {
    many.resize(items.size());
    polled = many.data();
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    polled[i] = {items[i].socket ? items[i].socket->socket_ : nullptr, items[i].descriptor,
                 static_cast<short>(ZMQ_POLLIN | (items[i].want_writable ? ZMQ_POLLOUT : 0)), 0};
  }
  const long wait = timeout.count() < 0 ? -1 : static_cast<long>(timeout.count());
  if (zmq_poll(polled, static_cast<int>(items.size()), wait) < 0) return false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    items[i].readable = (polled[i].revents & ZMQ_POLLIN) != 0;
    items[i].writable = (polled[i].revents & ZMQ_POLLOUT) != 0;
  }
  return true;
}

std::string z85Encode(std::string_view raw) {
  std::string text(raw.size() * 5 / 4 + 1, '\0');
  if (raw.size() % 4 != 0 ||
      zmq_z85_encode(text.data(), reinterpret_cast<const uint8_t*>(raw.data()), raw.size()) == nullptr) {
    return "";
  }
  text.pop_back();  // the terminating NUL
  return text;
}

std::optional<std::string> z85Decode(const std::string& text) {
  if (text.size() % 5 != 0) return std::nullopt;
  std::string raw(text.size() * 4 / 5, '\0');
  if (zmq_z85_decode(reinterpret_cast<uint8_t*>(raw.data()), text.c_str()) == nullptr) {
    return std::nullopt;
  }
  return raw;
}

Result<std::pair<std::string, std::string>> zmqCurveKeyPair() {
  char public_key[41] = {}, secret_key[41] = {};
  if (zmq_curve_keypair(public_key, secret_key) != 0) return lastFailure();
  return std::pair<std::string, std::string>{public_key, secret_key};
}

Result<std::string> zmqCurvePublicKey(const std::string& secret_key) {
  char public_key[41] = {};
  if (secret_key.size() != 40 || zmq_curve_public(public_key, secret_key.c_str()) != 0) {
    return invalidArgument("not a Curve secret key");
  }
  return std::string(public_key);
}

}  // namespace ftb
