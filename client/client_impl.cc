#include "client/client_impl.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "client/event_limits.h"
#include "client/filter.h"
#include "client/names.h"
#include "client/origin.h"
#include "client/transport/unix_endpoint.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"
#include "client/wire/event_writer.h"

namespace ftb {
namespace {

using std::chrono::milliseconds;

}  // namespace

static_assert(kDefaultAgentEndpoint == kDefaultLocalAgentEndpoint,
              "the SDK connects where the agent listens by default");

std::string defaultAgentEndpoint() {
  if (const char* env = std::getenv("FTB_AGENT_ENDPOINT"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::string(kDefaultAgentEndpoint);
}

Result<std::unique_ptr<Client>> Client::connect(ClientOptions options) {
  try {
    auto client = std::make_unique<ClientImpl>(std::move(options));
    if (Status s = client->start(); !s.ok()) return s;
    return std::unique_ptr<Client>(std::move(client));
  } catch (const std::exception& e) {
    return internalError(std::string("cannot start the ftb client: ") + e.what());
  }
}

ClientImpl::ClientImpl(ClientOptions options, const Clock& clock)
    : clock_(clock),
      options_(std::move(options)),
      endpoint_(options_.agent_endpoint.empty() ? defaultAgentEndpoint() : options_.agent_endpoint),
      client_instance_(nextClientInstance()),
      buffer_(options_.publish_buffer_events) {}

ClientImpl::~ClientImpl() { (void)disconnect(milliseconds(0)); }

Status ClientImpl::start() {
  Result<std::string> space = normalizeEventSpace(options_.event_space);
  if (!space.ok()) return space.status();
  if (Status s = checkClientName(options_.client_name); !s.ok()) return s;
  if (Status s = checkJobId(options_.job_id); !s.ok()) return s;
  if (options_.rank) {
    if (Status s = checkRankedJob(*options_.rank, options_.job_id); !s.ok()) return s;
  }
  if (!options_.curve_server_key.empty() &&
      (options_.curve_server_key.size() != 40 || options_.curve_public_key.size() != 40 ||
       options_.curve_secret_key.size() != 40)) {
    return invalidArgument(
        "curve_server_key, curve_public_key and curve_secret_key must all be 40-character Z85 "
        "keys (ftbctl keygen)");
  }
  event_space_ = *space;
  if (options_.last_will) {
    Result<std::string> name = normalizeEventName(options_.last_will->event_name);
    if (!name.ok()) return invalidArgument("last_will.event_name: " + name.status().message());
    const int severity = static_cast<int>(options_.last_will->severity);
    if (severity < 1 || severity > 4) {
      return invalidArgument("last_will " + *name + ": severity must be INFO, WARNING, ERROR or FATAL");
    }
    will_name_ = *name;
    // Declared with every Hello, so the agent can check the will against it.
    declared_[will_name_] = toProto(options_.last_will->severity);
  }
  EventId me = fromProto([&] {
    proto::EventId id;
    *id.mutable_origin() = localOrigin();
    id.set_client_instance(client_instance_);
    return id;
  }());
  publisher_key_ = me.publisherKey();

  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return internalError("eventfd failed");
  io_thread_ = std::thread([this] { ioLoop(); });
  dispatch_thread_ = std::thread([this] { dispatchLoop(); });

  std::unique_lock lock(mu_);
  hello_cv_.wait_for(lock, options_.connect_timeout,
                     [&] { return hello_done_ || !hello_error_.ok(); });
  if (hello_done_) return {};
  Status failure = hello_error_.ok()
                       ? unavailable("no ftb-agent answered at " + endpoint_ + " within " +
                                     std::to_string(options_.connect_timeout.count()) +
                                     " ms: is ftb-agent running there? (set FTB_AGENT_ENDPOINT "
                                     "or ClientOptions::agent_endpoint)")
                       : hello_error_;
  lock.unlock();
  (void)disconnect(milliseconds(0));
  return failure;
}

// ---------------------------------------------------------------- caller side

Status ClientImpl::declare(const std::vector<EventDeclaration>& events) {
  proto::Envelope envelope;
  auto* declare = envelope.mutable_declare();
  std::vector<std::pair<std::string, proto::Severity>> names;
  for (const auto& e : events) {
    Result<std::string> name = normalizeEventName(e.name);
    if (!name.ok()) return name.status();
    if (static_cast<int>(e.severity) < 1 || static_cast<int>(e.severity) > 4) {
      return invalidArgument("event " + *name + ": severity must be INFO, WARNING, ERROR or FATAL");
    }
    if (options_.last_will && *name == will_name_ &&
        toProto(e.severity) != toProto(options_.last_will->severity)) {
      return invalidArgument("event " + *name + " is this client's last will, declared with severity " +
                             std::string(severityName(options_.last_will->severity)) +
                             "; declare it with that severity");
    }
    names.emplace_back(*name, toProto(e.severity));
    auto* d = declare->add_declarations();
    d->set_name(*name);
    d->set_severity(toProto(e.severity));
  }
  bool connected;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, severity] : names) declared_[name] = severity;
    connected = hello_done_;
  }
  if (!connected) return {};  // sent with the next Hello
  Result<proto::Envelope> reply = call(std::move(envelope), options_.request_timeout);
  if (!reply.ok() && reply.status().code() != Code::kUnavailable) return reply.status();
  return {};
}

Result<EventId> ClientImpl::publish(std::string_view event_name, std::string_view payload,
                                    const Tags& tags) {
  return publishEvent(event_name, payload, tags, nullptr, {});
}

Result<EventId> ClientImpl::respond(const Event& request, std::string_view event_name,
                                    std::string_view payload, const Tags& tags) {
  if (request.id.seq == 0) return invalidArgument("the request event has no id (seq 0)");
  return publishEvent(event_name, payload, tags, &request, {});
}

Result<EventId> ClientImpl::publishEvent(std::string_view event_name, std::string_view payload,
                                         const Tags& tags, const Event* request,
                                         const std::function<void(uint64_t)>& on_seq) {
  if (stopping_.load()) return failedPrecondition("this client is disconnected");
  Result<std::string> name = normalizeEventName(event_name);
  if (!name.ok()) return name.status();
  TagCheck tag_check;
  for (const auto& [key, value] : tags) {
    if (Status s = tag_check.add(key, value); !s.ok()) return s;
  }
  OutgoingEvent event{.event_space = event_space_,
                      .event_name = *name,
                      .client_name = options_.client_name,
                      .job_id = options_.job_id,
                      .origin = &localOrigin(),
                      .client_instance = client_instance_,
                      .payload = payload,
                      .type = request != nullptr ? proto::RESPONSE : proto::NORMAL,
                      .response_to = request != nullptr ? &request->id : nullptr,
                      .tags = &tags};
  {
    std::lock_guard lock(mu_);
    auto declared = declared_.find(*name);
    if (declared == declared_.end()) {
      return failedPrecondition("event " + *name + " is not declared; call declare() first");
    }
    if (payload.size() > max_payload_) {
      return resourceExhausted("payload of " + std::to_string(payload.size()) +
                               " bytes exceeds the agent's limit of " +
                               std::to_string(max_payload_) + " bytes");
    }
    event.severity = declared->second;
  }
  const auto now = clock_.systemNow().time_since_epoch();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  event.time_sec = ns / 1'000'000'000;
  event.time_nsec = static_cast<int32_t>(ns % 1'000'000'000);

  Result<uint64_t> seq = buffer_.append([&](uint64_t seq) {
    event.seq = seq;
    if (on_seq) on_seq(seq);
    return writeEvent(event);
  }, options_.publish_wait_for_room);
  if (!seq.ok()) return seq.status();
  {
    std::lock_guard lock(mu_);
    ++stats_.published;
  }
  bool sent = false;
  if (direct_send_.load()) {
    // A lone event is written by this thread (the I/O thread holds link_mu_ only
    // for non-blocking calls). Events in a burst go to the I/O thread, which
    // sends what gathered meanwhile as one frame: one write per event would
    // cost the burst more than the hand-off saves.
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            clock_.steadyNow().time_since_epoch()).count();
    if (now - last_direct_send_ns_.exchange(now) > kBurstGap.count()) {
      std::lock_guard lock(link_mu_);
      sent = direct_send_.load() && sendEventsLocked();
    }
  }
  if (!sent) wake();
  return EventId{.host = event.origin->host(),
                 .pid = event.origin->pid(),
                 .process_start_ns = event.origin->process_start_ns(),
                 .client_instance = event.client_instance,
                 .seq = event.seq};
}

Result<std::vector<Event>> ClientImpl::request(std::string_view event_name,
                                               std::string_view payload, milliseconds deadline,
                                               std::size_t max_responses, const Tags& tags) {
  // The collector exists before the event can leave this process, so no
  // response can arrive ahead of it.
  Result<EventId> id = publishEvent(event_name, payload, tags, nullptr, [&](uint64_t seq) {
    std::lock_guard lock(collect_mu_);
    collectors_[seq].max = max_responses;
  });
  if (!id.ok()) return id.status();
  std::unique_lock lock(collect_mu_);
  auto it = collectors_.find(id->seq);
  if (it == collectors_.end()) return internalError("response collector lost");
  collectors_cv_.wait_for(lock, deadline, [&] {
    return max_responses != 0 && it->second.responses.size() >= max_responses;
  });
  std::vector<Event> responses = std::move(it->second.responses);
  collectors_.erase(it);
  return responses;
}

Result<SubscriptionId> ClientImpl::subscribe(SubscribeOptions options) {
  if (!options.callback && !options.polling) {
    return invalidArgument("a subscription needs a callback, polling = true, or both");
  }
  Result<Filter> filter = Filter::parse(options.filter);
  if (!filter.ok()) return filter.status();
  if (stopping_.load()) return failedPrecondition("this client is disconnected");

  proto::Envelope envelope;
  SubscriptionId id;
  bool connected;
  {
    std::lock_guard lock(mu_);
    id = next_subscription_++;
    SubscriptionState state;
    state.options = options;
    if (options.polling) state.queue = std::make_shared<NotificationQueue>(options_.poll_queue_events);
    subscriptions_.emplace(id, std::move(state));
    connected = hello_done_;
  }
  if (!connected) return id;  // established with the next Hello
  auto* sub = envelope.mutable_subscribe();
  sub->set_subscription_id(id);
  sub->set_filter(options.filter);
  if (options.history) {
    if (options.history->since) {
      toProto(*options.history->since, sub->mutable_history()->mutable_since());
    } else {
      sub->mutable_history()->set_last_n(options.history->last_n);
    }
  }
  Result<proto::Envelope> reply = call(std::move(envelope), options_.request_timeout);
  std::lock_guard lock(mu_);
  if (!reply.ok() && reply.status().code() != Code::kUnavailable &&
      reply.status().code() != Code::kDeadlineExceeded) {
    subscriptions_.erase(id);
    return reply.status();
  }
  if (reply.ok()) {
    auto it = subscriptions_.find(id);
    if (it != subscriptions_.end()) {
      it->second.established = true;
      const auto& answer = reply->subscribe_reply();
      if (!it->second.resume_from && answer.has_history_mark()) {
        it->second.resume_from = answer.history_mark();
      }
    }
  }
  return id;
}

Status ClientImpl::unsubscribe(SubscriptionId id) {
  bool connected;
  {
    std::lock_guard lock(mu_);
    auto it = subscriptions_.find(id);
    if (it == subscriptions_.end()) return notFound("no subscription " + std::to_string(id));
    if (it->second.queue) it->second.queue->close();
    subscriptions_.erase(it);
    connected = hello_done_;
  }
  if (!connected) return {};
  proto::Envelope envelope;
  envelope.mutable_unsubscribe()->set_subscription_id(id);
  Result<proto::Envelope> reply = call(std::move(envelope), options_.request_timeout);
  if (!reply.ok() && reply.status().code() != Code::kUnavailable &&
      reply.status().code() != Code::kNotFound) {
    return reply.status();
  }
  return {};
}

Result<std::optional<Notification>> ClientImpl::poll(SubscriptionId id, milliseconds timeout) {
  std::shared_ptr<NotificationQueue> queue;
  {
    std::lock_guard lock(mu_);
    auto it = subscriptions_.find(id);
    if (it == subscriptions_.end()) return notFound("no subscription " + std::to_string(id));
    if (!it->second.queue) {
      return failedPrecondition("subscription " + std::to_string(id) +
                                " delivers by callback; subscribe with polling = true to poll");
    }
    queue = it->second.queue;
  }
  return queue->pop(timeout);
}

Status ClientImpl::flush(milliseconds timeout) {
  const uint64_t last = buffer_.lastAssigned();
  if (buffer_.waitAcked(last, timeout)) return {};
  return deadlineExceeded(std::to_string(last - buffer_.acked()) +
                          " published events not yet acknowledged by the agent after " +
                          std::to_string(timeout.count()) + " ms");
}

Status ClientImpl::disconnect(milliseconds timeout) {
  if (!io_thread_.joinable()) return {};
  Status flushed = timeout.count() > 0 ? flush(timeout) : Status{};
  stopping_.store(true);
  wake();
  io_thread_.join();
  // The I/O thread's last frame (the Goodbye) may still wait in ZeroMQ's
  // queue: destroying a ZeroMQ link closes its context, which writes it out
  // (the socket's linger bounds the wait), so a process that exits right after
  // disconnect() is not taken for dead and its last will stays unpublished.
  {
    std::lock_guard lock(link_mu_);
    link_.reset();
  }
  dispatch_cv_.notify_all();
  if (dispatch_thread_.joinable()) {
    if (dispatch_thread_.get_id() == std::this_thread::get_id()) {
      dispatch_detached_->store(true);  // from a callback: it must not join itself
      dispatch_thread_.detach();
    } else {
      dispatch_thread_.join();
    }
  }
  {
    std::lock_guard lock(mu_);
    for (auto& [id, s] : subscriptions_) {
      if (s.queue) s.queue->close();
    }
    hello_done_ = false;
  }
  if (wake_fd_ >= 0) close(wake_fd_);
  wake_fd_ = -1;
  return flushed;
}

ClientStats ClientImpl::stats() const {
  std::lock_guard lock(mu_);
  ClientStats s = stats_;
  s.acked = buffer_.acked();
  s.connected = hello_done_;
  return s;
}

Result<proto::Envelope> ClientImpl::call(proto::Envelope envelope, milliseconds timeout) {
  auto pending = std::make_shared<Pending>();
  std::future<proto::Envelope> reply = pending->reply.get_future();
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    if (!hello_done_) return unavailable("not connected to the agent at " + endpoint_);
    id = next_request_++;
    envelope.set_request_id(id);
    pending_[id] = pending;
    outbox_.push_back(std::move(envelope));
  }
  wake();
  if (reply.wait_for(timeout) != std::future_status::ready) {
    std::lock_guard lock(mu_);
    pending_.erase(id);
    return deadlineExceeded("the agent did not answer within " + std::to_string(timeout.count()) +
                            " ms");
  }
  proto::Envelope answer = reply.get();
  if (answer.has_error()) return wire::statusFromError(answer.error());
  return answer;
}

void ClientImpl::wake() {
  if (wake_fd_ >= 0 && !wake_pending_.exchange(true)) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
}

// ---------------------------------------------------------------- dispatch thread

void ClientImpl::flushCallbacks() {
  if (callback_batch_.empty()) return;
  bool wake;
  uint64_t lost = 0;
  {
    std::lock_guard lock(dispatch_mu_);
    wake = dispatch_queue_.empty();
    for (auto& [id, notification] : callback_batch_) lost += enqueueLocked(id, std::move(notification));
  }
  callback_batch_.clear();
  if (wake) dispatch_cv_.notify_one();
  if (lost > 0) {
    std::lock_guard lock(mu_);
    stats_.missed += lost;
  }
}

uint64_t ClientImpl::enqueueLocked(SubscriptionId id, Notification notification) {
  if (notification.kind == Notification::Kind::kMissed) {
    callback_missed_[id] += notification.missed;  // merged, handed out in order below
    return 0;
  }
  if (dispatch_queue_.size() >= options_.poll_queue_events) {
    ++callback_missed_[id];  // a callback that cannot keep up: count, do not grow
    return 1;
  }
  if (auto m = callback_missed_.find(id); m != callback_missed_.end()) {
    dispatch_queue_.emplace_back(id, Notification{.kind = Notification::Kind::kMissed,
                                                  .event = {}, .missed = m->second});
    callback_missed_.erase(m);
  }
  dispatch_queue_.emplace_back(id, std::move(notification));
  return 0;
}

void ClientImpl::dispatchLoop() {
  const std::shared_ptr<std::atomic<bool>> detached = dispatch_detached_;  // outlives `this`
  std::deque<std::pair<SubscriptionId, Notification>> batch;
  std::unique_lock lock(dispatch_mu_);
  while (true) {
    dispatch_cv_.wait(lock, [&] {
      return !dispatch_queue_.empty() || !callback_missed_.empty() || stopping_.load();
    });
    if (dispatch_queue_.empty() && callback_missed_.empty()) return;
    batch.swap(dispatch_queue_);
    if (batch.empty()) {  // the queue drained with losses still untold
      for (auto& [id, count] : callback_missed_) {
        batch.emplace_back(id, Notification{.kind = Notification::Kind::kMissed, .event = {},
                                            .missed = count});
      }
      callback_missed_.clear();
    }
    lock.unlock();
    for (auto& [id, notification] : batch) {
      NotificationCallback callback;
      {
        std::lock_guard subs_lock(mu_);
        auto it = subscriptions_.find(id);
        if (it != subscriptions_.end()) callback = it->second.options.callback;
      }
      if (!callback) continue;  // unsubscribed meanwhile
      try {
        callback(notification);
      } catch (...) {
        if (detached->load()) return;
        std::lock_guard subs_lock(mu_);
        ++stats_.agent_errors;
        stats_.last_agent_error = "a subscription callback threw; the exception was swallowed";
      }
      if (detached->load()) return;  // the callback disconnected this client: no further callback
    }
    batch.clear();
    lock.lock();
  }
}

}  // namespace ftb
