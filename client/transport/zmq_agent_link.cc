// The ZeroMQ transport of AgentLink (ipc://, tcp://, Curve on tcp).
#include <array>
#include <deque>
#include <utility>

#include "client/transport/agent_link.h"
#include "client/transport/zmq_socket.h"

namespace ftb::detail {
namespace {

// Sockets that libzmq refuses to open or configure are a broken installation,
// not a state to recover from: reopen() keeps the link closed and says why.
class ZmqAgentLink final : public AgentLink {
 public:
  ZmqAgentLink(std::string endpoint, CurveClientKeys curve)
      : endpoint_(std::move(endpoint)), curve_(std::move(curve)) {}
  // The sockets first; then the context, which waits (up to the socket's
  // linger, set by close()) until libzmq has written what was queued.
  ~ZmqAgentLink() override {
    monitor_ = ZmqMonitor();
    socket_.close();
  }

  Status open() {
    monitor_ = ZmqMonitor();
    socket_.close();
    Result<ZmqSocket> socket = ZmqSocket::open(context_, ZmqType::kDealer);
    if (!socket.ok()) return socket.status();
    socket_ = std::move(socket).value();
    // Not ZMQ_IMMEDIATE: with it, libzmq discards the messages a connection had
    // already received but we had not read yet when the connection ends (an
    // agent that drains its queues and exits, measured: 99 of 600 kept), which
    // would lose deliveries silently. Nothing is published while disconnected
    // (the SDK waits for the HelloReply); what libzmq still holds from before
    // a disconnect reaches the next agent ahead of our Hello, is refused there
    // ("send Hello first") and re-sent from the PublishBuffer after the Hello.
    if (Status s = socket_.set({{ZmqOption::kLinger, 0},
                                {ZmqOption::kImmediate, 0},
                                {ZmqOption::kReconnectInterval, 100},
                                {ZmqOption::kReconnectIntervalMax, 1000},
                                {ZmqOption::kSendHwm, 1000},
                                {ZmqOption::kReceiveHwm, 100000}});
        !s.ok()) {
      return s;
    }
    if (!curve_.server_key.empty() && endpoint_.rfind("tcp://", 0) == 0) {
      Status s = socket_.setCurveClient(curve_.server_key, curve_.public_key, curve_.secret_key);
      if (!s.ok()) return s;
    }
    Result<ZmqMonitor> monitor = ZmqMonitor::watch(
        context_, socket_, {ZmqLinkEvent::kConnected, ZmqLinkEvent::kDisconnected});
    if (!monitor.ok()) return monitor.status();
    monitor_ = std::move(monitor).value();
    return socket_.connect(endpoint_);
  }

  void reopen() override { (void)open(); }  // the endpoint was accepted once: it still is

  void prepareWait(int wake_fd, bool want_out) override {
    items_[0] = {.descriptor = wake_fd};
    items_[1] = {.socket = &socket_, .want_writable = want_out};
    items_[2] = {.socket = &monitor_.socket()};
  }

  bool wait(std::chrono::milliseconds timeout) override {
    // A signal meant for the host program ends the wait early; the loop looks again.
    const bool with_wake = items_[0].descriptor >= 0;  // -1: no wake-up descriptor
    const std::span<ZmqPollItem> polled = with_wake ? std::span(items_) : std::span(items_).subspan(1);
    if (!zmqPoll(polled, timeout)) return false;
    return with_wake && items_[0].readable;
  }

  void afterWait() override {
    if (!items_[2].readable) return;
    while (std::optional<ZmqMonitorEvent> event = monitor_.next()) {
      if (event->kind == ZmqLinkEvent::kConnected) changes_.push_back(Change::kConnected);
      if (event->kind == ZmqLinkEvent::kDisconnected) changes_.push_back(Change::kDisconnected);
    }
  }

  std::optional<std::string_view> receive() override {
    if (!socket_.receive(frame_)) return std::nullopt;
    return frame_.bytes();
  }

  bool send(std::string_view frame) override { return socket_.send(frame) == ZmqSent::kSent; }

  Change takeChange() override {
    if (changes_.empty()) return Change::kNone;
    const Change next = changes_.front();
    changes_.pop_front();
    return next;
  }

  void close(std::chrono::milliseconds linger) override {
    // Closing the socket with a linger lets libzmq's I/O thread write what is queued.
    (void)socket_.set(ZmqOption::kLinger, linger.count());
    monitor_ = ZmqMonitor();
    socket_.close();
  }

 private:
  std::string endpoint_;
  ZmqContext context_;  // this link's own: libzmq's I/O thread exists only for ZeroMQ links
  CurveClientKeys curve_;
  ZmqSocket socket_;
  ZmqMonitor monitor_;
  ZmqMessage frame_;
  std::array<ZmqPollItem, 3> items_{};  // the wake-up descriptor, the socket, the monitor
  std::deque<Change> changes_;  // in the order they happened
};

}  // namespace

Result<std::unique_ptr<AgentLink>> makeZmqAgentLink(const std::string& endpoint,
                                                    const CurveClientKeys& curve) {
  auto link = std::make_unique<ZmqAgentLink>(endpoint, curve);
  if (Status s = link->open(); !s.ok()) {
    return invalidArgument("cannot connect to " + endpoint + ": " + s.message());
  }
  return std::unique_ptr<AgentLink>(std::move(link));
}

}  // namespace ftb::detail
