// The agent's data path: accepting published events (then Router: history,
// matching, delivery batching), subscribing, and acknowledging publishers.
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>

#include "agent/agent.h"
#include "agent/security/verified_sender.h"
#include "client/event_limits.h"
#include "client/names.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {
namespace {

constexpr uint32_t kAckEvents = 1024;

// Whether `id` names `session`'s client (compared field by field: per event).
bool fromPublisher(const ClientSession& session, const proto::EventId& id) {
  return id.client_instance() == session.client_instance &&
         id.origin().pid() == session.origin.pid() &&
         id.origin().process_start_ns() == session.origin.process_start_ns() &&
         id.origin().host() == session.origin.host();
}

}  // namespace

void Agent::onDeclare(ClientSession& session, const proto::Envelope& envelope) {
  std::vector<std::pair<std::string, proto::Severity>> accepted;
  for (const auto& d : envelope.declare().declarations()) {
    Result<std::string> name = normalizeEventName(d.name());
    if (!name.ok()) {
      return replies_.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                        name.status().message(), envelope.request_id());
    }
    if (d.severity() < proto::INFO || d.severity() > proto::FATAL) {
      return replies_.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                        "event " + *name + " is declared with severity " +
                            std::to_string(d.severity()) + "; use INFO, WARNING, ERROR or FATAL",
                        envelope.request_id());
    }
    accepted.emplace_back(*name, d.severity());
  }
  for (auto& [name, severity] : accepted) session.declared[name] = severity;
  proto::Envelope ok;
  ok.set_request_id(envelope.request_id());
  ok.mutable_ok();
  replies_.send(session.routing_id, ok);
}

void Agent::onPublish(ClientSession& session, std::span<const std::string_view> events) {
  for (const std::string_view bytes : events) {
    if (!accepting_ || accepting_.use_count() > 1) accepting_ = std::make_shared<RoutedEvent>();
    proto::Event& event = accepting_->event;
    if (!wire::parseEventFromPeer(event, bytes)) {
      counters_.set_bad_frames(counters_.bad_frames() + 1);
      log_.warn("bad-event", "client '{}' sent an event that does not parse", session.client_name);
      replies_.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                 "an event in a Publish message does not parse as ftb.proto.Event", 0);
      continue;
    }
    const uint64_t seq = event.id().seq();
    if (seq != 0 && seq <= session.last_seq) continue;  // re-sent after a reconnect: routed already
    Status accepted = acceptEvent(session, bytes, accepting_);
    if (seq > session.last_seq) {
      sessions_.recordAccepted(session, seq);  // and a PublishAck is due
    }
    if (!accepted.ok()) {
      counters_.set_events_rejected(counters_.events_rejected() + 1);
      log_.warn("rejected", "refused an event from '{}': {}", session.client_name,
                accepted.message());
      replies_.error(session.routing_id, wire::codeToWire(accepted.code()), accepted.message(), 0, seq);
    }
  }
}

Status Agent::acceptEvent(ClientSession& session, std::string_view bytes,
                          const std::shared_ptr<RoutedEvent>& routed) {
  proto::Event& event = routed->event;
  // One bound on the whole event first: the payload's limit plus what its
  // names, tags and id may hold (client/event_limits.h).
  if (bytes.size() > config_.max_payload_bytes + kMaxEventExtraBytes) {
    return resourceExhausted("event of " + std::to_string(bytes.size()) +
                             " bytes exceeds this agent's limit of " +
                             std::to_string(config_.max_payload_bytes + kMaxEventExtraBytes) +
                             " bytes (max-payload-bytes " + std::to_string(config_.max_payload_bytes) +
                             " plus " + std::to_string(kMaxEventExtraBytes) +
                             " for names, tags and id)");
  }
  if (event.id().seq() == 0 || !fromPublisher(session, event.id())) {
    return invalidArgument("event id must carry this client's origin and a sequence number > 0");
  }
  // Fast paths first: the SDK sends names already normalised.
  if (event.event_space() != session.event_space) {
    Result<std::string> space = normalizeEventSpace(event.event_space());
    if (!space.ok()) return space.status();
    if (*space != session.event_space) {
      return invalidArgument("event space " + event.event_space() +
                             " is not this client's event space " + session.event_space);
    }
  }
  if (!session.may_publish) {
    metrics_.refused(AgentMetrics::Refusal::kPublishPolicy);
    return Status(Code::kPermissionDenied,
                  "publishing into " + session.event_space + " is not allowed for " +
                      session.principal.describe() +
                      ": this agent's namespace policy lets only '" +
                      policy_.whoMay(NamespacePolicy::Action::kPublish, session.event_space) +
                      "' publish there (docs/SECURITY.md); publish under a namespace of your own");
  }
  auto declared = session.declared.find(event.event_name());
  if (declared == session.declared.end()) {
    Result<std::string> name = normalizeEventName(event.event_name());
    if (!name.ok()) return name.status();
    declared = session.declared.find(*name);
    if (declared == session.declared.end()) {
      return failedPrecondition("event " + *name + " was not declared by client '" +
                                session.client_name + "'; declare it before publishing");
    }
  }
  const std::string& name = declared->first;
  if (declared->second != event.severity()) {
    return invalidArgument("event " + name + " is declared with severity " +
                           proto::Severity_Name(declared->second) + " but published with " +
                           proto::Severity_Name(event.severity()));
  }
  if (event.payload().size() > config_.max_payload_bytes) {
    return resourceExhausted("payload of " + std::to_string(event.payload().size()) +
                             " bytes exceeds this agent's limit of " +
                             std::to_string(config_.max_payload_bytes) + " bytes");
  }
  for (const Status& s : {checkClientName(event.client_name()), checkJobId(event.job_id())}) {
    if (!s.ok()) return s;
  }
  TagCheck tag_check;
  for (const auto& [key, value] : event.tags()) {
    if (Status s = tag_check.add(key, value); !s.ok()) return s;
  }
  if (event.has_sender()) {
    return invalidArgument("an event must not carry `sender`: the accepting agent sets it");
  }
  if (event.type() == proto::RESPONSE && !event.has_response_to()) {
    return invalidArgument("a RESPONSE event must name the event it answers (response_to)");
  }

  // Record who the kernel says sent it: appending a serialized Event that holds
  // only `sender` merges into the original bytes (protobuf concatenation), so
  // the event is forwarded without re-encoding. The same for every event of
  // the session (the agent's name needs a restart): encoded once.
  if (session.sender_suffix.empty()) {
    proto::Event verified;
    stampSender(*verified.mutable_sender(), config_.name, session.principal);
    session.sender_suffix = verified.SerializeAsString();
  }
  std::string merged;
  merged.reserve(bytes.size() + session.sender_suffix.size());
  merged.append(bytes);
  merged.append(session.sender_suffix);
  // The parsed event is not given the sender: nothing routing reads needs it,
  // and it would cost two allocations per event (Clear() frees sub-messages).
  routed->bytes = std::make_shared<const std::string>(std::move(merged));
  routed->arrived = clock_.steadyNow();
  counters_.set_events_in(counters_.events_in() + 1);
  metrics_.events(routed->event.event_space(), routed->event.severity()).received_local->Increment();
  ++session.events_published;
  router_.publish(routed);
  if (tree_) tree_->publishLocal(routed, session.tree_key);
  return {};
}

void Agent::sendAcks() {
  // Acks are batched: every kAckEvents events or kAckDelay after the first
  // unacknowledged one, so they cost publishers few wake-ups.
  const auto now = clock_.steadyNow();
  for (auto& [routing_id, session] : sessions_) {
    if (!session->ack_due) continue;
    if (session->unacked_events < kAckEvents && now - session->ack_due_since < kAckDelay) continue;
    proto::Envelope ack;
    ack.mutable_publish_ack()->set_acked_seq(session->last_seq);
    const std::string frame = wire::encode(ack);
    if (client_frames_.trySend(routing_id, frame)) {  // else retried next turn
      session->ack_due = false;
      session->unacked_events = 0;
    }
  }
}

void Agent::onSubscribe(ClientSession& session, const proto::Envelope& envelope) {
  const proto::Subscribe& request = envelope.subscribe();
  if (request.subscription_id() == kResponseInbox) {
    return replies_.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                      "subscription id 0 is reserved", envelope.request_id());
  }
  if (session.subscriptions.size() >= config_.max_subscriptions_per_client &&
      session.subscriptions.count(request.subscription_id()) == 0) {
    return replies_.error(session.routing_id, proto::Error::RESOURCE_EXHAUSTED,
                      "this client already holds " +
                          std::to_string(session.subscriptions.size()) +
                          " subscriptions, the agent's --max-subscriptions-per-client",
                      envelope.request_id());
  }
  // One user's clients together, so that many clients cannot multiply the per-client bound.
  if (const std::optional<uint32_t> uid = session.principal.uid();
      uid && *uid != 0 && *uid != geteuid() && config_.max_subscriptions_per_uid > 0 &&
      session.subscriptions.count(request.subscription_id()) == 0) {
    if (const std::size_t held = sessions_.subscriptionsOf(*uid); held >= config_.max_subscriptions_per_uid) {
      return replies_.error(session.routing_id, proto::Error::RESOURCE_EXHAUSTED,
                        "uid " + std::to_string(*uid) + " already holds " + std::to_string(held) +
                            " subscriptions on this agent, its --max-subscriptions-per-uid",
                        envelope.request_id());
    }
  }
  Result<Filter> filter = Filter::parse(request.filter());
  if (!filter.ok()) {
    return replies_.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                      filter.status().message(), envelope.request_id());
  }
  std::vector<RoutedEventPtr> replay;
  bool complete = true;
  if (request.has_history()) {
    // What the client may not see is left out before counting (history_events).
    if (request.history().has_since()) {
      replay = visibleTo(admission_, session.principal, history_.since(request.history().since(), *filter, &complete),
                         history_.size());
    } else {
      const std::size_t n = request.history().last_n();
      replay = visibleTo(admission_, session.principal,
                         history_.lastN(admission_.everyoneSeesEverything() ? n : history_.size(), *filter), n);
    }
  }
  session.subscriptions.insert_or_assign(request.subscription_id(),
                                         Subscription{request.subscription_id(), *filter});
  subscription_index_.add(&session, request.subscription_id(), *filter);
  if (tree_) tree_->interestChanged();
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_subscribe_reply();
  r->set_subscription_id(request.subscription_id());
  r->set_history_events(static_cast<uint32_t>(replay.size()));
  r->set_history_complete(complete);
  if (auto newest = history_.newestId()) *r->mutable_history_mark() = *newest;
  replies_.send(session.routing_id, answer);
  const std::vector<uint32_t> ids{request.subscription_id()};
  for (const auto& e : replay) router_.enqueue(session, e, ids);
}

void Agent::onUnsubscribe(ClientSession& session, const proto::Envelope& envelope) {
  const uint32_t id = envelope.unsubscribe().subscription_id();
  if (session.subscriptions.erase(id) == 0) {
    return replies_.error(session.routing_id, proto::Error::NOT_FOUND,
                      "no subscription " + std::to_string(id) + " for this client",
                      envelope.request_id());
  }
  subscription_index_.remove(&session, id);
  if (tree_) tree_->interestChanged();
  proto::Envelope ok;
  ok.set_request_id(envelope.request_id());
  ok.mutable_ok();
  replies_.send(session.routing_id, ok);
}

}  // namespace ftb::agent
