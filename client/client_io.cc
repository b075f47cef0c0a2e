// The SDK's I/O thread: the only code that touches the ZeroMQ sockets.
#include <poll.h>
#include <unistd.h>

#include <zmq.h>

#include "client/client_impl.h"
#include "client/codec.h"
#include "client/event_codec.h"
#include "client/origin.h"

namespace ftb {
namespace {

using std::chrono::milliseconds;

constexpr std::size_t kMaxEventsPerFrame = 128;
constexpr std::size_t kMaxBytesPerFrame = 256 * 1024;
constexpr SubscriptionId kResponseInbox = 0;

}  // namespace

void ClientImpl::openSocket() {
  monitor_.reset();
  socket_.reset();
  socket_ = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket_->set(zmq::sockopt::linger, 0);
  // Not ZMQ_IMMEDIATE: with it, libzmq discards the messages a connection had
  // already received but we had not read yet when the connection ends (an
  // agent that drains its queues and exits, measured: 99 of 600 kept), which
  // would lose deliveries silently. Nothing is published while disconnected
  // (sendPending waits for the HelloReply); what libzmq still holds from before
  // a disconnect reaches the next agent ahead of our Hello, is refused there
  // ("send Hello first") and re-sent from the PublishBuffer after the Hello.
  socket_->set(zmq::sockopt::immediate, 0);
  socket_->set(zmq::sockopt::reconnect_ivl, 100);
  socket_->set(zmq::sockopt::reconnect_ivl_max, 1000);
  socket_->set(zmq::sockopt::sndhwm, 1000);
  socket_->set(zmq::sockopt::rcvhwm, 100000);
  if (!options_.curve_server_key.empty() && endpoint_.rfind("tcp://", 0) == 0) {
    socket_->set(zmq::sockopt::curve_serverkey, options_.curve_server_key);
    socket_->set(zmq::sockopt::curve_publickey, options_.curve_public_key);
    socket_->set(zmq::sockopt::curve_secretkey, options_.curve_secret_key);
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

void ClientImpl::ioLoop() {
  try {
    openSocket();
  } catch (const zmq::error_t& e) {
    std::lock_guard lock(mu_);
    hello_error_ = invalidArgument("cannot connect to " + endpoint_ + ": " + e.what());
    hello_cv_.notify_all();
    return;
  }
  try {
    serve();
  } catch (const std::exception& e) {
    // Nothing may escape into the host program: the client just stops working.
    markDisconnected(std::string("the ftb client's I/O thread failed: ") + e.what());
    std::lock_guard lock(mu_);
    stats_.last_agent_error = std::string("I/O thread failed: ") + e.what();
    hello_sent_ = true;  // keeps start() from waiting for a Hello that never comes
    hello_error_ = internalError(stats_.last_agent_error);
    hello_cv_.notify_all();
  }
}

void ClientImpl::serve() {
  auto last_rx = Clock::now();
  auto next_heartbeat = Clock::now();
  while (!stopping_.load()) {
    bool want_out;
    {
      std::lock_guard lock(mu_);
      want_out = hello_wanted_ || (hello_done_ && send_cursor_ <= buffer_.lastAssigned());
    }
    zmq::pollitem_t items[] = {
        {socket_->handle(), 0, static_cast<short>(ZMQ_POLLIN | (want_out ? ZMQ_POLLOUT : 0)), 0},
        {monitor_->handle(), 0, ZMQ_POLLIN, 0},
        {nullptr, wake_fd_, ZMQ_POLLIN, 0},
    };
    try {
      zmq::poll(items, 3, milliseconds(100));
    } catch (const zmq::error_t&) {
      continue;  // EINTR from a signal meant for the host program
    }
    if (items[2].revents & ZMQ_POLLIN) {
      uint64_t count;
      wake_pending_.store(false);
      (void)!read(wake_fd_, &count, sizeof(count));
    }
    if (items[1].revents & ZMQ_POLLIN) {
      zmq::message_t event, address;
      if (monitor_->recv(event, zmq::recv_flags::dontwait) && event.more()) {
        (void)monitor_->recv(address, zmq::recv_flags::dontwait);
        uint16_t what = 0;
        std::memcpy(&what, event.data(), sizeof(what));
        if (what == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
          last_rx = Clock::now();
          hello_wanted_ = true;
        } else if (what == ZMQ_EVENT_DISCONNECTED) {
          markDisconnected("the connection to the agent closed");
        }
      }
    }
    for (int i = 0; i < 1024; ++i) {
      zmq::message_t frame;
      if (!socket_->recv(frame, zmq::recv_flags::dontwait)) break;
      last_rx = Clock::now();
      Result<proto::Envelope> envelope = wire::decode(frame.data(), frame.size());
      if (!envelope.ok()) {
        std::lock_guard lock(mu_);
        ++stats_.agent_errors;
        stats_.last_agent_error = envelope.status().toString();
        continue;
      }
      onMessage(*envelope);
    }
    if (hello_wanted_) hello_wanted_ = !sayHello();
    sendPending();

    const auto now = Clock::now();
    milliseconds interval, timeout;
    bool registered, hello_outstanding;
    {
      std::lock_guard lock(mu_);
      interval = heartbeat_interval_;
      timeout = agent_timeout_;
      registered = hello_done_;
      hello_outstanding = hello_sent_ && !hello_done_;
    }
    if (registered && now >= next_heartbeat) {
      proto::Envelope heartbeat;
      heartbeat.mutable_heartbeat();
      (void)sendFrame(wire::encode(heartbeat));
      next_heartbeat = now + interval;
    }
    // An agent that stops answering (host gone, half-open connection) or never
    // answers our Hello: start over with a fresh socket.
    if ((registered || hello_outstanding) && now - last_rx > timeout) {
      markDisconnected("the agent stopped answering");
      openSocket();
      hello_wanted_ = false;  // the new socket reports its own handshake
      last_rx = now;
    }
  }
  bool registered;
  {
    std::lock_guard lock(mu_);
    registered = hello_done_;
  }
  if (registered) {
    proto::Envelope goodbye;
    goodbye.mutable_goodbye();
    // The Goodbye must reach the agent (it is what keeps a last will
    // unpublished): give ZeroMQ a moment to write it when the socket closes.
    socket_->set(zmq::sockopt::linger, 1000);
    (void)sendFrame(wire::encode(goodbye));
  }
  failPendingRequests(failedPrecondition("the client is disconnecting"));
  monitor_.reset();
  socket_.reset();
}

bool ClientImpl::sayHello() {
  proto::Envelope envelope;
  {
    std::lock_guard lock(mu_);
    hello_done_ = false;
    hello_sent_ = true;
    hello_request_ = next_request_++;
    envelope.set_request_id(hello_request_);
    auto* hello = envelope.mutable_hello();
    hello->set_client_name(options_.client_name);
    hello->set_event_space(event_space_);
    hello->set_job_id(options_.job_id);
    *hello->mutable_origin() = localOrigin();
    hello->set_client_instance(client_instance_);
    for (const auto& [name, severity] : declared_) {
      auto* d = hello->add_declarations();
      d->set_name(name);
      d->set_severity(severity);
    }
    if (options_.last_will) {
      auto* will = hello->mutable_last_will();
      will->set_event_name(will_name_);
      will->set_severity(toProto(options_.last_will->severity));
      will->set_payload(options_.last_will->payload);
      for (const auto& [key, value] : options_.last_will->tags) (*will->mutable_tags())[key] = value;
    }
  }
  return sendFrame(wire::encode(envelope));
}

void ClientImpl::onMessage(proto::Envelope& envelope) {
  switch (envelope.body_case()) {
    case proto::Envelope::kHelloReply: return onHelloReply(envelope);
    case proto::Envelope::kPublishAck: {
      buffer_.acknowledge(envelope.publish_ack().acked_seq());
      return;
    }
    case proto::Envelope::kDeliver: return onDeliver(envelope.deliver());
    default: break;
  }
  std::shared_ptr<Pending> pending;
  bool say_hello = false;
  {
    std::lock_guard lock(mu_);
    if (envelope.has_error() && envelope.request_id() != 0 &&
        envelope.request_id() == hello_request_) {
      hello_error_ = wire::statusFromError(envelope.error());
      hello_sent_ = false;
      hello_cv_.notify_all();
      return;
    }
    auto it = pending_.find(envelope.request_id());
    if (envelope.request_id() != 0 && it != pending_.end()) {
      pending = it->second;
      pending_.erase(it);
    } else if (envelope.has_error()) {
      if (envelope.error().code() == proto::Error::UNAUTHENTICATED) {
        // The agent lost our session (it restarted): register again.
        say_hello = hello_done_;
      } else {
        ++stats_.agent_errors;
        stats_.last_agent_error = wire::statusFromError(envelope.error()).toString();
      }
    }
  }
  if (pending) pending->reply.set_value(std::move(envelope));
  if (say_hello) hello_wanted_ = true;
}

void ClientImpl::onHelloReply(const proto::Envelope& envelope) {
  const proto::HelloReply& reply = envelope.hello_reply();
  // Outside mu_: the buffer has its own lock (see the lock order in the header).
  buffer_.acknowledge(reply.accepted_seq());
  const uint64_t resend_from = buffer_.firstUnacked();
  std::vector<proto::Envelope> resubscribe;
  {
    std::lock_guard lock(mu_);
    if (envelope.request_id() != hello_request_) return;  // an answer to an older Hello
    hello_done_ = true;
    hello_error_ = {};
    max_payload_ = reply.max_payload_bytes();
    if (reply.heartbeat_interval_ms() > 0) heartbeat_interval_ = milliseconds(reply.heartbeat_interval_ms());
    if (reply.client_timeout_ms() > 0) agent_timeout_ = milliseconds(reply.client_timeout_ms());
    if (stats_.connected) ++stats_.reconnects;
    stats_.connected = true;
    send_cursor_ = resend_from;
    for (auto& [id, sub] : subscriptions_) {
      // Events published while we were away reached the agent before this
      // Subscribe: ask for them from history; duplicates are dropped by id.
      proto::Envelope s;
      auto* request = s.mutable_subscribe();
      request->set_subscription_id(id);
      request->set_filter(sub.options.filter);
      if (sub.resume_from) {
        *request->mutable_history()->mutable_since() = *sub.resume_from;
      } else if (sub.established) {
        request->mutable_history()->set_last_n(UINT32_MAX);
      } else if (sub.options.history) {  // subscribed while disconnected
        if (sub.options.history->since) {
          toProto(*sub.options.history->since, request->mutable_history()->mutable_since());
        } else {
          request->mutable_history()->set_last_n(sub.options.history->last_n);
        }
      }
      sub.established = true;
      resubscribe.push_back(std::move(s));
    }
  }
  for (auto& s : resubscribe) (void)sendFrame(wire::encode(s));
  hello_cv_.notify_all();
}

void ClientImpl::onDeliver(const proto::Deliver& deliver) {
  if (deliver.missed_before() > 0) {
    std::lock_guard lock(mu_);
    stats_.missed += deliver.missed_before();
    if (deliver.missed_size() > 0) {
      for (const auto& m : deliver.missed()) reportMissed(m.subscription_id(), m.count());
    } else {  // an agent that counts per client only: tell every subscription
      std::vector<SubscriptionId> ids;
      for (const auto& [id, sub] : subscriptions_) ids.push_back(id);
      for (SubscriptionId id : ids) reportMissed(id, deliver.missed_before());
    }
  }
  for (const auto& delivery : deliver.deliveries()) {
    proto::Event parsed;
    if (!wire::parseFromPeer(parsed, delivery.event())) {
      std::lock_guard lock(mu_);
      ++stats_.agent_errors;
      stats_.last_agent_error = "the agent delivered an event that does not parse";
      continue;
    }
    const Event event = fromProto(parsed);
    for (SubscriptionId id : delivery.subscription_ids()) {
      if (id == kResponseInbox) {
        if (!event.response_to || event.response_to->publisherKey() != publisher_key_) continue;
        std::lock_guard lock(collect_mu_);
        auto it = collectors_.find(event.response_to->seq);
        if (it == collectors_.end()) continue;  // nobody is collecting: not an error
        it->second.responses.push_back(event);
        collectors_cv_.notify_all();
        continue;
      }
      deliverTo(id, event, parsed.id());
    }
  }
}

void ClientImpl::reportMissed(SubscriptionId id, uint64_t count) {
  auto it = subscriptions_.find(id);
  if (it == subscriptions_.end() || count == 0) return;
  Notification notice{.kind = Notification::Kind::kMissed, .event = {}, .missed = count};
  if (it->second.queue) it->second.queue->push(notice);
  if (it->second.options.callback) enqueueCallback(id, std::move(notice));
}

void ClientImpl::deliverTo(SubscriptionId id, const Event& event, const proto::EventId& wire_id) {
  std::lock_guard lock(mu_);
  auto it = subscriptions_.find(id);
  if (it == subscriptions_.end()) return;  // unsubscribed meanwhile
  SubscriptionState& sub = it->second;
  sub.resume_from = wire_id;
  // A reconnect re-sends what the agent had not acknowledged; some of it may
  // already have been delivered. Sequence numbers per publisher only grow.
  uint64_t& last = sub.last_seq[event.id.publisherKey()];
  if (event.id.seq <= last) {
    ++stats_.duplicates_suppressed;
    return;
  }
  last = event.id.seq;
  ++stats_.delivered;
  Notification notification{.kind = Notification::Kind::kEvent, .event = event, .missed = 0};
  if (sub.queue) stats_.missed += sub.queue->push(notification);
  if (sub.options.callback) enqueueCallback(id, std::move(notification));
}

void ClientImpl::sendPending() {
  std::deque<proto::Envelope> requests;
  bool registered;
  {
    std::lock_guard lock(mu_);
    registered = hello_done_;
    if (registered) requests.swap(outbox_);
  }
  for (auto& r : requests) {
    if (!sendFrame(wire::encode(r))) {
      std::shared_ptr<Pending> pending;
      {
        std::lock_guard lock(mu_);
        auto it = pending_.find(r.request_id());
        if (it != pending_.end()) {
          pending = it->second;
          pending_.erase(it);
        }
      }
      if (pending) {
        pending->reply.set_value(wire::makeError(proto::Error::UNAVAILABLE,
                                                 "the agent's connection is busy or gone",
                                                 r.request_id()));
      }
    }
  }
  if (!registered) return;
  while (true) {
    uint64_t cursor = send_cursor_;
    std::vector<std::string> events = buffer_.takeFrom(&cursor, kMaxEventsPerFrame, kMaxBytesPerFrame);
    if (events.empty()) return;
    proto::Envelope envelope;
    auto* publish = envelope.mutable_publish();
    for (auto& e : events) publish->add_events(std::move(e));
    if (!sendFrame(wire::encode(envelope))) return;  // pipe full: retry on POLLOUT
    send_cursor_ = cursor;
  }
}

bool ClientImpl::sendFrame(const std::string& frame) {
  try {
    return socket_->send(zmq::buffer(frame), zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t&) {
    return false;
  }
}

void ClientImpl::markDisconnected(std::string_view why) {
  {
    std::lock_guard lock(mu_);
    if (!hello_done_ && !hello_sent_) return;
    hello_done_ = false;
    hello_sent_ = false;
    stats_.last_agent_error = std::string(why);
  }
  failPendingRequests(unavailable(std::string(why)));
}

void ClientImpl::failPendingRequests(const Status& status) {
  std::unordered_map<uint64_t, std::shared_ptr<Pending>> pending;
  {
    std::lock_guard lock(mu_);
    pending.swap(pending_);
  }
  for (auto& [id, p] : pending) {
    p->reply.set_value(wire::makeError(wire::codeToWire(status.code()), status.message(), id));
  }
}

}  // namespace ftb
