// The SDK's I/O thread: the only code that touches the connection to the agent (AgentLink).
#include <poll.h>
#include <unistd.h>

#include "client/client_impl.h"
#include "client/origin.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb {
namespace {

using std::chrono::milliseconds;

constexpr std::size_t kMaxEventsPerFrame = 128;
constexpr std::size_t kMaxBytesPerFrame = 256 * 1024;
constexpr SubscriptionId kResponseInbox = 0;

}  // namespace

void ClientImpl::ioLoop() {
  Result<std::unique_ptr<AgentLink>> link = AgentLink::create(
      endpoint_, {options_.curve_server_key, options_.curve_public_key, options_.curve_secret_key});
  if (!link.ok()) {
    std::lock_guard lock(mu_);
    hello_error_ = link.status();
    hello_cv_.notify_all();
    return;
  }
  {
    std::lock_guard lock(link_mu_);
    link_ = std::move(link).value();
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
  auto last_rx = clock_.steadyNow();
  auto next_heartbeat = clock_.steadyNow();
  while (!stopping_.load()) {
    bool registered_now;
    {
      std::lock_guard lock(mu_);
      registered_now = hello_done_;
    }
    {
      std::lock_guard lock(link_mu_);
      const bool want_out =
          hello_wanted_ || (registered_now && send_cursor_ <= buffer_.lastAssigned());
      link_->prepareWait(wake_fd_, want_out);
    }
    // Without link_mu_: callers write their own events meanwhile (stream links).
    if (link_->wait(milliseconds(100))) {
      uint64_t count;
      wake_pending_.store(false);
      (void)!read(wake_fd_, &count, sizeof(count));
    }
    {
      std::lock_guard lock(link_mu_);
      link_->afterWait();
    }
    for (int i = 0; i < 1024; ++i) {
      std::optional<std::string_view> frame;
      {
        // The view stays valid until this thread's next receive(): callers only send.
        std::lock_guard lock(link_mu_);
        frame = link_->receive();
      }
      if (!frame) break;
      last_rx = clock_.steadyNow();
      // Deliver frames, nearly all traffic, are read without protobuf.
      if (readDeliverFrame(*frame, deliver_content_)) {
        onDeliver(deliver_content_);
        continue;
      }
      Result<proto::Envelope> envelope = wire::decode(frame->data(), frame->size());
      if (!envelope.ok()) {
        std::lock_guard lock(mu_);
        ++stats_.agent_errors;
        stats_.last_agent_error = envelope.status().toString();
        continue;
      }
      onMessage(*envelope);
    }
    for (auto change = takeLinkChange(); change != AgentLink::Change::kNone;
         change = takeLinkChange()) {
      if (change == AgentLink::Change::kConnected) {
        last_rx = clock_.steadyNow();
        hello_wanted_ = true;
      } else {
        markDisconnected("the connection to the agent closed");
      }
    }
    if (hello_wanted_) hello_wanted_ = !sayHello();
    sendPending();

    const auto now = clock_.steadyNow();
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
      std::lock_guard lock(link_mu_);
      link_->reopen();
      hello_wanted_ = false;  // the new connection reports its own handshake
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
    (void)sendFrame(wire::encode(goodbye));
  }
  failPendingRequests(failedPrecondition("the client is disconnecting"));
  // The Goodbye must reach the agent (it is what keeps a last will
  // unpublished): the link gets a moment to write it.
  std::lock_guard lock(link_mu_);
  direct_send_.store(false);
  link_->close(registered ? milliseconds(1000) : milliseconds(0));
  link_.reset();
}

AgentLink::Change ClientImpl::takeLinkChange() {
  std::lock_guard lock(link_mu_);
  return link_->takeChange();
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
    if (options_.rank) hello->set_rank(*options_.rank);
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
    case proto::Envelope::kDeliver:
      deliverContentFromProto(envelope.deliver(), deliver_content_);
      return onDeliver(deliver_content_);
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
  {
    std::lock_guard lock(link_mu_);
    send_cursor_ = resend_from;
    // From here on callers may write their events themselves (after the Hello,
    // from the cursor the agent's reply set).
    direct_send_.store(link_->sendsFromAnyThread());
  }
  for (auto& s : resubscribe) (void)sendFrame(wire::encode(s));
  hello_cv_.notify_all();
}

void ClientImpl::onDeliver(DeliverContent& deliver) {
  if (deliver.unparsable_events > 0) {
    std::lock_guard lock(mu_);
    stats_.agent_errors += deliver.unparsable_events;
    stats_.last_agent_error = "the agent delivered an event that does not parse";
  }
  if (deliver.missed_before > 0) {
    std::lock_guard lock(mu_);
    stats_.missed += deliver.missed_before;
    if (!deliver.missed.empty()) {
      for (const auto& m : deliver.missed) reportMissed(m.subscription_id, m.count);
    } else {  // an agent that counts per client only: tell every subscription
      std::vector<SubscriptionId> ids;
      for (const auto& [id, sub] : subscriptions_) ids.push_back(id);
      for (SubscriptionId id : ids) reportMissed(id, deliver.missed_before);
    }
  }
  for (auto& delivery : deliver.deliveries) {
    Event& event = delivery.event;
    const std::string& publisher = sequenceKeyOf(event);
    const std::size_t ids = delivery.subscription_ids.size();
    for (std::size_t i = 0; i < ids; ++i) {
      const SubscriptionId id = delivery.subscription_ids[i];
      if (id == kResponseInbox) {
        if (!event.response_to || event.response_to->publisherKey() != publisher_key_) continue;
        {
          std::lock_guard lock(collect_mu_);
          auto it = collectors_.find(event.response_to->seq);
          if (it == collectors_.end()) continue;  // nobody is collecting: not an error
          it->second.responses.push_back(event);
        }
        // After the unlock: a waiter woken while the mutex is still held sleeps again on it.
        collectors_cv_.notify_all();
        continue;
      }
      // The last subscription takes the event itself; others a copy.
      deliverTo(id, i + 1 == ids ? std::move(event) : Event(event), publisher);
    }
  }
  flushCallbacks();
}

const std::string& ClientImpl::sequenceKeyOf(const Event& event) {
  // Consecutive events mostly come from one publisher: its key is built once.
  const EventId& id = event.id;
  if (id.host != key_of_.host || id.pid != key_of_.pid ||
      id.process_start_ns != key_of_.process_start_ns ||
      id.client_instance != key_of_.client_instance ||
      event.sender.credentials_known != key_sender_.credentials_known ||
      (!event.sender.credentials_known && event.sender.agent != key_sender_.agent)) {
    key_of_ = id;
    key_sender_ = event.sender;
    key_ = sequenceKey(id.publisherKey(), event.sender.credentials_known, event.sender.agent);
  }
  return key_;
}

void ClientImpl::reportMissed(SubscriptionId id, uint64_t count) {
  auto it = subscriptions_.find(id);
  if (it == subscriptions_.end() || count == 0) return;
  Notification notice{.kind = Notification::Kind::kMissed, .event = {}, .missed = count};
  if (it->second.queue) it->second.queue->push(notice);
  if (it->second.options.callback) callback_batch_.emplace_back(id, std::move(notice));  // ahead of the frame's events
}

void ClientImpl::deliverTo(SubscriptionId id, Event event, const std::string& publisher) {
  std::shared_ptr<NotificationQueue> queue;
  bool has_callback;
  {
    std::lock_guard lock(mu_);
    auto it = subscriptions_.find(id);
    if (it == subscriptions_.end()) return;  // unsubscribed meanwhile
    SubscriptionState& sub = it->second;
    if (!sub.resume_from) sub.resume_from.emplace();
    toProto(event.id, &*sub.resume_from);  // reuses its buffers
    // A reconnect re-sends what the agent had not acknowledged; some of it may
    // already have been delivered. Sequence numbers per publisher only grow.
    uint64_t& last = sub.last_seq[publisher];
    if (event.id.seq <= last) {
      ++stats_.duplicates_suppressed;
      return;
    }
    last = event.id.seq;
    ++stats_.delivered;
    queue = sub.queue;
    has_callback = static_cast<bool>(sub.options.callback);
  }
  // Handed over with mu_ released: the woken consumer usually takes mu_ at once
  // (respond(), the callback's lookup), and finding it held would cost it a second
  // wake-up. Only this thread hands over, so the order stays the agent's.
  Notification notification{.kind = Notification::Kind::kEvent, .event = std::move(event), .missed = 0};
  uint64_t lost = 0;
  if (queue) lost += has_callback ? queue->push(notification) : queue->push(std::move(notification));
  // Callbacks go to the dispatch thread together, at the end of the frame: one wake-up per frame.
  if (has_callback) callback_batch_.emplace_back(id, std::move(notification));
  if (lost > 0) {
    std::lock_guard lock(mu_);
    stats_.missed += lost;
  }
}

void ClientImpl::sendPending() {
  std::deque<proto::Envelope> requests;
  bool registered;
  {
    std::lock_guard lock(mu_);
    registered = hello_done_;
    if (registered) requests.swap(outbox_);
  }
  std::vector<uint64_t> unsent;  // request ids whose frame the link did not take
  {
    std::lock_guard lock(link_mu_);
    for (auto& r : requests) {
      if (!link_->send(wire::encode(r))) unsent.push_back(r.request_id());
    }
    if (registered) (void)sendEventsLocked();
  }
  for (uint64_t id : unsent) {
    std::shared_ptr<Pending> pending;
    {
      std::lock_guard lock(mu_);
      auto it = pending_.find(id);
      if (it != pending_.end()) {
        pending = it->second;
        pending_.erase(it);
      }
    }
    if (pending) {
      pending->reply.set_value(wire::makeError(proto::Error::UNAVAILABLE,
                                               "the agent's connection is busy or gone", id));
    }
  }
}

bool ClientImpl::sendEventsLocked() {
  while (true) {
    uint64_t cursor = send_cursor_;
    std::vector<std::string> events = buffer_.takeFrom(&cursor, kMaxEventsPerFrame, kMaxBytesPerFrame);
    if (events.empty()) return true;
    proto::Envelope envelope;
    auto* publish = envelope.mutable_publish();
    for (auto& e : events) publish->add_events(std::move(e));
    if (!link_->send(wire::encode(envelope))) return false;  // full: retry on POLLOUT
    send_cursor_ = cursor;
  }
}

bool ClientImpl::sendFrame(const std::string& frame) {
  std::lock_guard lock(link_mu_);
  return link_->send(frame);
}

void ClientImpl::markDisconnected(std::string_view why) {
  direct_send_.store(false);  // until the next HelloReply
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
