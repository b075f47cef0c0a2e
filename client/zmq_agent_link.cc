// The ZeroMQ transport of AgentLink (ipc://, tcp://, Curve on tcp).
#include <atomic>
#include <cstring>
#include <utility>

#include <zmq.h>

#include <deque>
#include <vector>
#include <zmq.hpp>

#include "client/agent_link.h"

namespace ftb::detail {
namespace {

class ZmqAgentLink final : public AgentLink {
 public:
  ZmqAgentLink(std::string endpoint, CurveClientKeys curve)
      : endpoint_(std::move(endpoint)), curve_(std::move(curve)) {
    reopen();
  }
  // The sockets first; then the context, which waits (up to the socket's
  // linger, set by close()) until libzmq has written what was queued.
  ~ZmqAgentLink() override {
    monitor_.reset();
    socket_.reset();
    context_.close();
  }

  void reopen() override {
    monitor_.reset();
    socket_.reset();
    socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
    socket_->set(zmq::sockopt::linger, 0);
    // Not ZMQ_IMMEDIATE: with it, libzmq discards the messages a connection had
    // already received but we had not read yet when the connection ends (an
    // agent that drains its queues and exits, measured: 99 of 600 kept), which
    // would lose deliveries silently. Nothing is published while disconnected
    // (the SDK waits for the HelloReply); what libzmq still holds from before
    // a disconnect reaches the next agent ahead of our Hello, is refused there
    // ("send Hello first") and re-sent from the PublishBuffer after the Hello.
    socket_->set(zmq::sockopt::immediate, 0);
    socket_->set(zmq::sockopt::reconnect_ivl, 100);
    socket_->set(zmq::sockopt::reconnect_ivl_max, 1000);
    socket_->set(zmq::sockopt::sndhwm, 1000);
    socket_->set(zmq::sockopt::rcvhwm, 100000);
    if (!curve_.server_key.empty() && endpoint_.rfind("tcp://", 0) == 0) {
      socket_->set(zmq::sockopt::curve_serverkey, curve_.server_key);
      socket_->set(zmq::sockopt::curve_publickey, curve_.public_key);
      socket_->set(zmq::sockopt::curve_secretkey, curve_.secret_key);
    }
    static std::atomic<uint64_t> monitors{0};
    const std::string monitor_endpoint =
        "inproc://ftb-client-monitor-" + std::to_string(monitors.fetch_add(1));
    zmq_socket_monitor(socket_->handle(), monitor_endpoint.c_str(),
                       ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED);
    monitor_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::pair);
    monitor_->set(zmq::sockopt::linger, 0);
    monitor_->connect(monitor_endpoint);
    socket_->connect(endpoint_);
  }

  void prepareWait(int wake_fd, bool want_out) override {
    items_.clear();
    items_.push_back({nullptr, wake_fd, ZMQ_POLLIN, 0});
    items_.push_back({socket_->handle(), 0, static_cast<short>(ZMQ_POLLIN | (want_out ? ZMQ_POLLOUT : 0)), 0});
    items_.push_back({monitor_->handle(), 0, ZMQ_POLLIN, 0});
  }

  bool wait(std::chrono::milliseconds timeout) override {
    try {
      zmq::poll(items_.data(), items_.size(), timeout);
    } catch (const zmq::error_t&) {
      return false;  // EINTR from a signal meant for the host program
    }
    return (items_[0].revents & ZMQ_POLLIN) != 0;
  }

  void afterWait() override {
    if ((items_[2].revents & ZMQ_POLLIN) == 0) return;
    zmq::message_t event, address;
    if (!monitor_->recv(event, zmq::recv_flags::dontwait) || !event.more()) return;
    (void)monitor_->recv(address, zmq::recv_flags::dontwait);
    uint16_t what = 0;
    std::memcpy(&what, event.data(), sizeof(what));
    if (what == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) changes_.push_back(Change::kConnected);
    if (what == ZMQ_EVENT_DISCONNECTED) changes_.push_back(Change::kDisconnected);
  }

  std::optional<std::string_view> receive() override {
    if (!socket_->recv(frame_, zmq::recv_flags::dontwait)) return std::nullopt;
    return std::string_view(static_cast<const char*>(frame_.data()), frame_.size());
  }

  bool send(std::string_view frame) override {
    try {
      return socket_->send(zmq::buffer(frame.data(), frame.size()), zmq::send_flags::dontwait).has_value();
    } catch (const zmq::error_t&) {
      return false;
    }
  }

  Change takeChange() override {
    if (changes_.empty()) return Change::kNone;
    const Change next = changes_.front();
    changes_.pop_front();
    return next;
  }

  void close(std::chrono::milliseconds linger) override {
    // Closing the socket with a linger lets libzmq's I/O thread write what is queued.
    socket_->set(zmq::sockopt::linger, static_cast<int>(linger.count()));
    monitor_.reset();
    socket_.reset();
  }

 private:
  std::string endpoint_;
  zmq::context_t context_{1};  // this link's own: libzmq's I/O thread exists only for ZeroMQ links
  CurveClientKeys curve_;
  std::unique_ptr<zmq::socket_t> socket_;
  std::unique_ptr<zmq::socket_t> monitor_;
  zmq::message_t frame_;
  std::vector<zmq::pollitem_t> items_;  // the wake-up descriptor, the socket, the monitor
  std::deque<Change> changes_;  // in the order they happened
};

}  // namespace

Result<std::unique_ptr<AgentLink>> makeZmqAgentLink(const std::string& endpoint,
                                                    const CurveClientKeys& curve) {
  try {
    return std::unique_ptr<AgentLink>(std::make_unique<ZmqAgentLink>(endpoint, curve));
  } catch (const zmq::error_t& e) {
    return invalidArgument("cannot connect to " + endpoint + ": " + e.what());
  }
}

}  // namespace ftb::detail
