#include "client/wire/event_codec.h"

namespace ftb {

proto::Severity toProto(Severity severity) { return static_cast<proto::Severity>(severity); }

Severity fromProto(proto::Severity severity) {
  if (severity < proto::INFO || severity > proto::FATAL) return Severity::kInfo;
  return static_cast<Severity>(severity);
}

void toProto(const EventId& id, proto::EventId* out) {
  auto* origin = out->mutable_origin();
  origin->set_host(id.host);
  origin->set_pid(id.pid);
  origin->set_process_start_ns(id.process_start_ns);
  out->set_client_instance(id.client_instance);
  out->set_seq(id.seq);
}

EventId fromProto(const proto::EventId& id) {
  return EventId{.host = id.origin().host(),
                 .pid = id.origin().pid(),
                 .process_start_ns = id.origin().process_start_ns(),
                 .client_instance = id.client_instance(),
                 .seq = id.seq()};
}

void toProto(const Event& event, proto::Event* out) {
  out->set_event_space(event.event_space);
  out->set_event_name(event.event_name);
  out->set_severity(toProto(event.severity));
  out->set_client_name(event.client_name);
  out->set_job_id(event.job_id);
  toProto(event.id, out->mutable_id());
  out->set_time_sec(event.time_sec);
  out->set_time_nsec(event.time_nsec);
  out->set_payload(event.payload);
  out->set_type(event.type == EventType::kResponse ? proto::RESPONSE : proto::NORMAL);
  if (event.response_to) toProto(*event.response_to, out->mutable_response_to());
  for (const auto& [key, value] : event.tags) (*out->mutable_tags())[key] = value;
  if (!event.sender.agent.empty() || event.sender.credentials_known || event.sender.uid_known) {
    auto* sender = out->mutable_sender();
    sender->set_uid(event.sender.uid);
    sender->set_pid(event.sender.pid);
    sender->set_agent(event.sender.agent);
    sender->set_credentials_known(event.sender.credentials_known);
    sender->set_uid_known(event.sender.uid_known);
  }
}

Event fromProto(proto::Event&& event) {
  Event out;
  out.event_space = std::move(*event.mutable_event_space());
  out.event_name = std::move(*event.mutable_event_name());
  out.severity = fromProto(event.severity());
  out.client_name = std::move(*event.mutable_client_name());
  out.job_id = std::move(*event.mutable_job_id());
  const proto::EventId& id = event.id();
  out.id = EventId{.host = {},
                   .pid = id.origin().pid(),
                   .process_start_ns = id.origin().process_start_ns(),
                   .client_instance = id.client_instance(),
                   .seq = id.seq()};
  // mutable_*() would allocate a message that is absent.
  if (id.has_origin()) out.id.host = std::move(*event.mutable_id()->mutable_origin()->mutable_host());
  out.time_sec = event.time_sec();
  out.time_nsec = event.time_nsec();
  out.payload = std::move(*event.mutable_payload());
  out.type = event.type() == proto::RESPONSE ? EventType::kResponse : EventType::kNormal;
  if (event.has_response_to()) out.response_to = fromProto(event.response_to());
  out.tags.insert(event.tags().begin(), event.tags().end());
  out.sender = VerifiedSender{.uid = event.sender().uid(),
                              .pid = event.sender().pid(),
                              .agent = event.has_sender() ? std::move(*event.mutable_sender()->mutable_agent())
                                                          : std::string(),
                              .credentials_known = event.sender().credentials_known(),
                              .uid_known = event.sender().uid_known()};
  return out;
}

Event fromProto(const proto::Event& event) { return fromProto(proto::Event(event)); }

}  // namespace ftb
