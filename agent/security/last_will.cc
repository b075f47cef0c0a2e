#include "agent/security/last_will.h"

#include "agent/security/verified_sender.h"
#include "client/names.h"

namespace ftb::agent {

Result<std::optional<proto::Event>> lastWillFromHello(const proto::Hello& hello,
                                                      const std::string& event_space,
                                                      uint64_t max_payload_bytes) {
  if (!hello.has_last_will()) return std::optional<proto::Event>();
  const proto::LastWill& will = hello.last_will();
  Result<std::string> name = normalizeEventName(will.event_name());
  if (!name.ok()) {
    return invalidArgument("last_will.event_name: " + name.status().message());
  }
  const proto::EventDeclaration* declared = nullptr;
  for (const auto& d : hello.declarations()) {
    Result<std::string> n = normalizeEventName(d.name());
    if (n.ok() && *n == *name) declared = &d;
  }
  if (declared == nullptr) {
    return failedPrecondition("last_will.event_name " + *name +
                              " is not among the Hello's declarations; declare the will's event");
  }
  if (declared->severity() != will.severity()) {
    return invalidArgument("last_will " + *name + " has severity " +
                           proto::Severity_Name(will.severity()) + " but is declared with " +
                           proto::Severity_Name(declared->severity()));
  }
  if (will.payload().size() > max_payload_bytes) {
    return resourceExhausted("last_will payload of " + std::to_string(will.payload().size()) +
                             " bytes exceeds this agent's limit of " +
                             std::to_string(max_payload_bytes) + " bytes");
  }
  proto::Event e;
  e.set_event_space(event_space);
  e.set_event_name(*name);
  e.set_severity(will.severity());
  e.set_client_name(hello.client_name());
  e.set_job_id(hello.job_id());
  e.set_type(proto::NORMAL);
  e.set_payload(will.payload());
  *e.mutable_id()->mutable_origin() = hello.origin();
  e.mutable_id()->set_client_instance(hello.client_instance() | kWillInstanceBit);
  e.mutable_id()->set_seq(1);
  for (const auto& [key, value] : will.tags()) (*e.mutable_tags())[key] = value;
  return std::optional<proto::Event>(std::move(e));
}

proto::Event stampLastWill(proto::Event will, std::chrono::system_clock::time_point now,
                           const std::string& agent_name,
                           const Principal& who) {
  const auto since_epoch = now.time_since_epoch();
  const auto sec = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  will.set_time_sec(sec.count());
  will.set_time_nsec(static_cast<int32_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - sec).count()));
  stampSender(*will.mutable_sender(), agent_name, who);
  return will;
}

std::unordered_map<std::string, std::string> clientLostTags(const LostClient& lost) {
  std::unordered_map<std::string, std::string> tags{
      {"space", lost.event_space},
      {"client", lost.client_name},
      {"pid", std::to_string(lost.who.peer ? lost.who.peer->pid : lost.origin_pid)},
      {"uid", lost.who.uid() ? std::to_string(*lost.who.uid()) : std::string("unknown")},
      {"node", lost.node},
      {"why", lost.why},
      {"will", lost.will_published ? "1" : "0"},
  };
  if (!lost.job_id.empty()) tags["job"] = lost.job_id;
  return tags;
}

}  // namespace ftb::agent
