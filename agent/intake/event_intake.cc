#include "agent/intake/event_intake.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "agent/security/last_will.h"
#include "agent/security/verified_sender.h"
#include "client/event.h"
#include "client/event_limits.h"
#include "client/names.h"
#include "client/payload_fields.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {
namespace {

constexpr uint32_t kAckEvents = 1024;

// Whether `id` names `session`'s client (compared field by field: per event).
bool fromPublisher(const ClientSession& session, const proto::EventId& id) {
  return id.client_instance() == session.client_instance && id.origin().pid() == session.origin.pid() &&
         id.origin().process_start_ns() == session.origin.process_start_ns() &&
         id.origin().host() == session.origin.host();
}

}  // namespace

void EventIntake::onDeclare(ClientSession& session, const proto::Envelope& envelope) {
  std::vector<std::pair<std::string, proto::Severity>> accepted;
  for (const auto& d : envelope.declare().declarations()) {
    Result<std::string> name = normalizeEventName(d.name());
    if (!name.ok()) {
      return p_.replies.error(session.routing_id, proto::Error::INVALID_ARGUMENT, name.status().message(),
                              envelope.request_id());
    }
    if (d.severity() < proto::INFO || d.severity() > proto::FATAL) {
      return p_.replies.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
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
  p_.replies.send(session.routing_id, ok);
}

void EventIntake::onPublish(ClientSession& session, std::span<const std::string_view> events) {
  for (const std::string_view bytes : events) {
    if (!accepting_ || accepting_.use_count() > 1) accepting_ = std::make_shared<RoutedEvent>();
    proto::Event& event = accepting_->event;
    if (!wire::parseEventFromPeer(event, bytes)) {
      p_.counters.set_bad_frames(p_.counters.bad_frames() + 1);
      p_.log.warn("bad-event", "client '{}' sent an event that does not parse", session.client_name);
      p_.replies.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                       "an event in a Publish message does not parse as ftb.proto.Event", 0);
      continue;
    }
    const uint64_t seq = event.id().seq();
    if (seq != 0 && seq <= session.last_seq) continue;  // re-sent after a reconnect: routed already
    Status accepted = acceptEvent(session, bytes, accepting_);
    if (seq > session.last_seq) {
      p_.sessions.recordAccepted(session, seq);  // and a PublishAck is due
    }
    if (!accepted.ok()) {
      p_.counters.set_events_rejected(p_.counters.events_rejected() + 1);
      p_.log.warn("rejected", "refused an event from '{}': {}", session.client_name, accepted.message());
      p_.replies.error(session.routing_id, wire::codeToWire(accepted.code()), accepted.message(), 0, seq);
    }
  }
}

Status EventIntake::acceptEvent(ClientSession& session, std::string_view bytes,
                                const std::shared_ptr<RoutedEvent>& routed) {
  proto::Event& event = routed->event;
  // One bound on the whole event first: the payload's limit plus what its
  // names, tags and id may hold (client/event_limits.h).
  if (bytes.size() > p_.config.max_payload_bytes + kMaxEventExtraBytes) {
    return resourceExhausted("event of " + std::to_string(bytes.size()) +
                             " bytes exceeds this agent's limit of " +
                             std::to_string(p_.config.max_payload_bytes + kMaxEventExtraBytes) +
                             " bytes (max-payload-bytes " + std::to_string(p_.config.max_payload_bytes) +
                             " plus " + std::to_string(kMaxEventExtraBytes) + " for names, tags and id)");
  }
  if (event.id().seq() == 0 || !fromPublisher(session, event.id())) {
    return invalidArgument("event id must carry this client's origin and a sequence number > 0");
  }
  // Fast paths first: the SDK sends names already normalised.
  if (event.event_space() != session.event_space) {
    Result<std::string> space = normalizeEventSpace(event.event_space());
    if (!space.ok()) return space.status();
    if (*space != session.event_space) {
      return invalidArgument("event space " + event.event_space() + " is not this client's event space " +
                             session.event_space);
    }
  }
  if (!session.may_publish) {
    p_.metrics.refused(AgentMetrics::Refusal::kPublishPolicy);
    return Status(Code::kPermissionDenied,
                  "publishing into " + session.event_space + " is not allowed for " +
                      session.principal.describe() + ": this agent's namespace policy lets only '" +
                      p_.policy.whoMay(NamespacePolicy::Action::kPublish, session.event_space) +
                      "' publish there (docs/SECURITY.md); publish under a namespace of your own");
  }
  auto declared = session.declared.find(event.event_name());
  if (declared == session.declared.end()) {
    Result<std::string> name = normalizeEventName(event.event_name());
    if (!name.ok()) return name.status();
    declared = session.declared.find(*name);
    if (declared == session.declared.end()) {
      return failedPrecondition("event " + *name + " was not declared by client '" + session.client_name +
                                "'; declare it before publishing");
    }
  }
  const std::string& name = declared->first;
  if (declared->second != event.severity()) {
    return invalidArgument("event " + name + " is declared with severity " +
                           proto::Severity_Name(declared->second) + " but published with " +
                           proto::Severity_Name(event.severity()));
  }
  if (event.payload().size() > p_.config.max_payload_bytes) {
    return resourceExhausted("payload of " + std::to_string(event.payload().size()) +
                             " bytes exceeds this agent's limit of " +
                             std::to_string(p_.config.max_payload_bytes) + " bytes");
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
    stampSender(*verified.mutable_sender(), p_.config.name, session.principal);
    session.sender_suffix = verified.SerializeAsString();
  }
  std::string merged;
  merged.reserve(bytes.size() + session.sender_suffix.size());
  merged.append(bytes);
  merged.append(session.sender_suffix);
  // The parsed event is not given the sender: nothing routing reads needs it,
  // and it would cost two allocations per event (Clear() frees sub-messages).
  routed->bytes = std::make_shared<const std::string>(std::move(merged));
  routed->arrived = p_.clock.steadyNow();
  p_.counters.set_events_in(p_.counters.events_in() + 1);
  p_.metrics.events(routed->event.event_space(), routed->event.severity()).received_local->Increment();
  ++session.events_published;
  p_.router.publish(routed);
  if (p_.tree) p_.tree->publishLocal(routed, session.tree_key);
  return {};
}

void EventIntake::sendAcks() {
  // Acks are batched: every kAckEvents events or kAckDelay after the first
  // unacknowledged one, so they cost publishers few wake-ups.
  const auto now = p_.clock.steadyNow();
  for (const auto& [routing_id, session] : p_.sessions) {
    if (!session->ack_due) continue;
    if (session->unacked_events < kAckEvents && now - session->ack_due_since < kAckDelay) continue;
    proto::Envelope ack;
    ack.mutable_publish_ack()->set_acked_seq(session->last_seq);
    const std::string frame = wire::encode(ack);
    if (p_.sink.trySend(routing_id, frame)) {  // else retried next turn
      session->ack_due = false;
      session->unacked_events = 0;
    }
  }
}

bool EventIntake::publishLastWill(ClientSession& session) {
  if (!session.last_will) return false;
  if (!session.may_publish) {
    // The policy changed since Hello (a reload): the notice still goes out.
    p_.log.warn("will-policy",
                "the last will of '{}' is not published: the namespace policy no "
                "longer lets it publish into {}",
                session.client_name, session.event_space);
    return false;
  }
  const std::string key = fromProto(session.last_will->id()).publisherKey();
  // Published already (the client came back and went again)?
  if (!p_.sessions.claimWillSequence(key)) return false;

  auto routed = std::make_shared<RoutedEvent>();
  routed->event =
      stampLastWill(std::move(*session.last_will), p_.clock.systemNow(), p_.config.name, session.principal);
  session.last_will.reset();
  routed->bytes = std::make_shared<const std::string>(routed->event.SerializeAsString());
  routed->arrived = p_.clock.steadyNow();
  p_.counters.set_events_in(p_.counters.events_in() + 1);
  p_.metrics.events(routed->event.event_space(), routed->event.severity()).received_local->Increment();
  spdlog::info("published the last will {} of client '{}' in {}", routed->event.event_name(),
               session.client_name, session.event_space);
  p_.router.publish(routed);
  if (p_.tree)
    p_.tree->publishLocal(routed, sequenceKey(key, session.principal.peer.has_value(), p_.config.name));
  return true;
}

void EventIntake::publishClientLost(const ClientSession& session, std::string_view why, bool will_published) {
  const auto tags = clientLostTags({.event_space = session.event_space,
                                    .client_name = session.client_name,
                                    .job_id = session.job_id,
                                    .who = session.principal,
                                    .origin_pid = session.origin.pid(),
                                    .node = p_.config.name,
                                    .why = std::string(why),
                                    .will_published = will_published});
  const Tags ordered(tags.begin(), tags.end());
  publishAgentEvent("FTB_CLIENT_LOST", proto::WARNING, formatTagsPayload(p_.config.name, ordered), tags);
}

void EventIntake::publishAgentEvent(const std::string& name, proto::Severity severity, std::string payload,
                                    const std::unordered_map<std::string, std::string>& tags) {
  auto routed = std::make_shared<RoutedEvent>();
  proto::Event& e = routed->event;
  e.set_event_space(kAgentEventSpace);
  e.set_event_name(name);
  e.set_severity(severity);
  e.set_client_name("ftb-agent");
  e.set_type(proto::NORMAL);
  auto* origin = e.mutable_id()->mutable_origin();
  origin->set_host(p_.config.name);
  origin->set_pid(static_cast<uint32_t>(getpid()));
  origin->set_process_start_ns(incarnation_);
  e.mutable_id()->set_seq(++agent_event_seq_);
  const auto wall = p_.clock.systemNow().time_since_epoch();
  e.set_time_sec(std::chrono::duration_cast<std::chrono::seconds>(wall).count());
  e.set_time_nsec(
      static_cast<int32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count() % 1000000000));
  e.set_payload(std::move(payload));
  for (const auto& [key, value] : tags) (*e.mutable_tags())[key] = value;
  stampSender(
      *e.mutable_sender(), p_.config.name,
      {.peer = PeerCredentials{.uid = geteuid(), .gid = getegid(), .pid = static_cast<uint32_t>(getpid())}});
  routed->bytes = std::make_shared<const std::string>(e.SerializeAsString());
  routed->arrived = p_.clock.steadyNow();
  p_.counters.set_events_in(p_.counters.events_in() + 1);
  p_.metrics.events(e.event_space(), e.severity()).received_local->Increment();
  p_.router.publish(routed);
  if (p_.tree) p_.tree->publishLocal(routed, ftb::fromProto(e.id()).publisherKey());
}

}  // namespace ftb::agent
