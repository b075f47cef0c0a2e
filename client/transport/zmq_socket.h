// ZeroMQ behind one small interface: zmq_socket.cc is the only product file
// that includes libzmq's headers (tests/unit/client:zmq_seam_test checks it).
// Failures are values, never exceptions: a send says whether the pipe was full
// or the peer unknown, options and endpoints return a Status with libzmq's
// reason, and an interrupted wait is an ordinary return.
//
//   ZmqContext context;
//   Result<ZmqSocket> dealer = ZmqSocket::open(context, ZmqType::kDealer);
//   dealer->set(ZmqOption::kLinger, 0);
//   if (Status s = dealer->connect("ipc:///run/ftb/agent.sock"); !s.ok()) ...
//   if (dealer->send(frame) == ZmqSent::kWouldBlock) backlog.push_back(frame);
//   ZmqMessage reply;
//   while (dealer->receive(reply)) use(reply.bytes());
//
// Threading: as libzmq's. A context is thread-safe; a socket, its monitor and
// a message belong to one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "client/status.h"

namespace ftb {

// A libzmq context: its I/O thread, and what sockets in it share (inproc://).
class ZmqContext {
 public:
  ZmqContext();  // one I/O thread
  // Waits until the sockets closed with a linger have written what they hold.
  ~ZmqContext();
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;

  // Runs the I/O thread under `policy` (sched.h, e.g. SCHED_RR) at `priority`.
  // Only before the first socket: libzmq starts the thread with it. libzmq
  // aborts when the thread may not have it: ask the kernel first.
  Status setIoThreadScheduling(int policy, int priority);

 private:
  friend class ZmqSocket;
  void* context_;
};

struct ZmqPollItem;

enum class ZmqType { kRouter, kDealer, kRep, kPair };

// Integer socket options (libzmq's ZMQ_* of the same meaning; times in ms).
enum class ZmqOption {
  kLinger,
  kSendHwm,
  kReceiveHwm,
  kSendTimeout,
  kReceiveTimeout,
  kRouterMandatory,  // a send to an unknown peer fails (ZmqSent::kNoSuchPeer)
  kImmediate,
  kReconnectInterval,
  kReconnectIntervalMax,
  kHeartbeatInterval,
  kHeartbeatTimeout,
  kMaxMessageSize,
  kCurveServer,
};

// Text socket options; Curve keys are 40-character Z85 text.
enum class ZmqTextOption { kCurveServerKey, kCurvePublicKey, kCurveSecretKey, kZapDomain, kRoutingId };

// What became of a send.
enum class ZmqSent {
  kSent,
  kWouldBlock,  // the pipe to the peer is full (or, blocking, the send timeout passed)
  kNoSuchPeer,  // a ROUTER with kRouterMandatory does not know the routing id
  kFailed,      // anything else: ZmqSocket::lastError() says what
};

// One received message part, reused by receive(): its bytes stay valid until
// the next receive into it.
class ZmqMessage {
 public:
  ZmqMessage();
  ~ZmqMessage();
  ZmqMessage(ZmqMessage&& other) noexcept;
  ZmqMessage& operator=(ZmqMessage&& other) noexcept;

  std::string_view bytes() const;
  // Another part of the same message follows.
  bool more() const;
  // A property of the connection the part came by, null when it has none:
  // "Peer-Address" (ipc://: the peer's kernel credentials, peer_credentials.h),
  // "User-Id" (Curve: the key the ZAP handler admitted).
  const char* property(const char* name) const;

 private:
  friend class ZmqSocket;
  alignas(8) unsigned char message_[64];  // zmq_msg_t (checked in zmq_socket.cc)
};

class ZmqSocket {
 public:
  ZmqSocket() = default;  // closed
  static Result<ZmqSocket> open(ZmqContext& context, ZmqType type);
  ZmqSocket(ZmqSocket&& other) noexcept;
  ZmqSocket& operator=(ZmqSocket&& other) noexcept;
  ~ZmqSocket();  // closes: what is queued goes out within the linger

  bool isOpen() const { return socket_ != nullptr; }
  void close();

  Status set(ZmqOption option, int64_t value);
  // Several, in order; the first refusal ends it.
  //   socket.set({{ZmqOption::kLinger, 0}, {ZmqOption::kSendHwm, 1000}});
  Status set(std::initializer_list<std::pair<ZmqOption, int64_t>> options);
  Status set(ZmqTextOption option, const std::string& value);
  // The three keys of a Curve client: encrypted, and authenticated by `secret_key`.
  Status setCurveClient(const std::string& server_key, const std::string& public_key,
                        const std::string& secret_key);

  // Errors carry libzmq's reason; the caller names the endpoint.
  Status bind(const std::string& endpoint);
  Status connect(const std::string& endpoint);
  // The endpoint last bound, with the port the kernel chose for ":0".
  std::string lastEndpoint() const;

  // The descriptor to wait on (ZMQ_FD). It tells only of changes since the
  // socket was last used: ask readable() before sleeping on it.
  int descriptor() const;
  bool readable() const;

  // Without blocking unless `wait` (then up to kSendTimeout). `more`: another
  // part of the same message follows.
  ZmqSent send(std::string_view part, bool more = false, bool wait = false);
  // The next part into `into`; false when none is pending (or, with `wait`,
  // none came within kReceiveTimeout) or the receive failed.
  bool receive(ZmqMessage& into, bool wait = false);

  // libzmq's text for this thread's last failure.
  static std::string lastError();

 private:
  friend class ZmqMonitor;
  friend bool zmqPoll(std::span<ZmqPollItem> items, std::chrono::milliseconds timeout);
  explicit ZmqSocket(void* socket) : socket_(socket) {}
  void* socket_ = nullptr;
};

// What a monitor reports of a socket's connections.
enum class ZmqLinkEvent {
  kConnected,       // the ZMTP handshake succeeded
  kConnectRetried,  // connecting failed (refused, no such socket); libzmq retries
  kDisconnected,    // an established connection closed (or its heartbeats timed out)
  kNotZmtp,         // the handshake failed: the peer does not speak ZMTP, or not as we do
  kAuthRefused,     // the peer's ZAP handler refused our Curve key
  kAccepted,        // a listener accepted a connection (value: its descriptor)
  kOther,
};

// One event of a monitor: what happened, libzmq's value for it (a descriptor
// for kAccepted and kDisconnected) and the endpoint it happened on (for a
// connection a listener accepted: the listener's endpoint).
struct ZmqMonitorEvent {
  ZmqLinkEvent kind = ZmqLinkEvent::kOther;
  int64_t value = 0;
  std::string endpoint;
};

// libzmq's socket monitor: the chosen connection events of one socket, read
// without blocking from a PAIR socket of the same context.
class ZmqMonitor {
 public:
  ZmqMonitor() = default;  // watches nothing
  // Before the socket connects, so that no event goes unreported.
  static Result<ZmqMonitor> watch(ZmqContext& context, ZmqSocket& socket,
                                  std::initializer_list<ZmqLinkEvent> events);

  bool isOpen() const { return events_.isOpen(); }
  // The next event, nullopt when none is pending.
  std::optional<ZmqMonitorEvent> next();
  // For polls: the PAIR socket the events arrive on.
  const ZmqSocket& socket() const { return events_; }

 private:
  ZmqSocket events_;
  ZmqMessage part_;
};

// One entry of zmqPoll: a socket, or else a plain descriptor.
struct ZmqPollItem {
  const ZmqSocket* socket = nullptr;
  int descriptor = -1;
  bool want_writable = false;
  bool readable = false;  // set by zmqPoll
  bool writable = false;
};

// Waits until an item is ready or `timeout` passes (negative: for ever).
// False when a signal interrupted the wait, or it failed (a socket closed, its
// context ended): the items say nothing then.
bool zmqPoll(std::span<ZmqPollItem> items, std::chrono::milliseconds timeout);

// Z85 (ZeroMQ RFC 32), as Curve keys are written.
std::string z85Encode(std::string_view raw);  // raw.size() a multiple of 4
std::optional<std::string> z85Decode(const std::string& text);  // nullopt: not Z85
// A new Curve key pair (Z85), and the public half of a secret key.
Result<std::pair<std::string, std::string>> zmqCurveKeyPair();
Result<std::string> zmqCurvePublicKey(const std::string& secret_key);

}  // namespace ftb
