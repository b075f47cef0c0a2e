// The events the agent publishes itself: FTB.AGENT notices (a client lost,
// the tree's topology changes and losses), and the last will of a client gone
// without a Goodbye (its session lost: Departures, or --client-timeout-ms).
// docs/RECOVERY_EVENTS.md, "Last will".
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/security/last_will.h"
#include "agent/security/verified_sender.h"
#include "client/event.h"
#include "client/payload_fields.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {

bool Agent::publishLastWill(ClientSession& session) {
  if (!session.last_will) return false;
  if (!session.may_publish) {
    // The policy changed since Hello (a reload): the notice still goes out.
    log_.warn("will-policy", "the last will of '{}' is not published: the namespace policy no "
              "longer lets it publish into {}", session.client_name, session.event_space);
    return false;
  }
  const std::string key = fromProto(session.last_will->id()).publisherKey();
  // Published already (the client came back and went again)?
  if (!sessions_.claimWillSequence(key)) return false;

  auto routed = std::make_shared<RoutedEvent>();
  routed->event = stampLastWill(std::move(*session.last_will), clock_.systemNow(),
                                config_.name, session.principal);
  session.last_will.reset();
  routed->bytes = std::make_shared<const std::string>(routed->event.SerializeAsString());
  routed->arrived = clock_.steadyNow();
  counters_.set_events_in(counters_.events_in() + 1);
  metrics_.events(routed->event.event_space(), routed->event.severity()).received_local->Increment();
  spdlog::info("published the last will {} of client '{}' in {}", routed->event.event_name(),
               session.client_name, session.event_space);
  router_.publish(routed);
  if (tree_) tree_->publishLocal(routed, sequenceKey(key, session.principal.peer.has_value(), config_.name));
  return true;
}

void Agent::publishClientLost(const ClientSession& session, std::string_view why,
                              bool will_published) {
  const auto tags = clientLostTags({.event_space = session.event_space,
                                    .client_name = session.client_name,
                                    .job_id = session.job_id,
                                    .who = session.principal,
                                    .origin_pid = session.origin.pid(),
                                    .node = config_.name,
                                    .why = std::string(why),
                                    .will_published = will_published});
  const Tags ordered(tags.begin(), tags.end());
  publishAgentEvent("FTB_CLIENT_LOST", proto::WARNING, formatTagsPayload(config_.name, ordered), tags);
}

void Agent::publishAgentEvent(const std::string& name, proto::Severity severity,
                              std::string payload,
                              const std::unordered_map<std::string, std::string>& tags) {
  auto routed = std::make_shared<RoutedEvent>();
  proto::Event& e = routed->event;
  e.set_event_space(kAgentEventSpace);
  e.set_event_name(name);
  e.set_severity(severity);
  e.set_client_name("ftb-agent");
  e.set_type(proto::NORMAL);
  auto* origin = e.mutable_id()->mutable_origin();
  origin->set_host(config_.name);
  origin->set_pid(static_cast<uint32_t>(getpid()));
  origin->set_process_start_ns(incarnation_);
  e.mutable_id()->set_seq(++agent_event_seq_);
  const auto wall = clock_.systemNow().time_since_epoch();
  e.set_time_sec(std::chrono::duration_cast<std::chrono::seconds>(wall).count());
  e.set_time_nsec(static_cast<int32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count() % 1000000000));
  e.set_payload(std::move(payload));
  for (const auto& [key, value] : tags) (*e.mutable_tags())[key] = value;
  stampSender(*e.mutable_sender(), config_.name,
              {.peer = PeerCredentials{.uid = geteuid(), .gid = getegid(), .pid = static_cast<uint32_t>(getpid())}});
  routed->bytes = std::make_shared<const std::string>(e.SerializeAsString());
  routed->arrived = clock_.steadyNow();
  counters_.set_events_in(counters_.events_in() + 1);
  metrics_.events(e.event_space(), e.severity()).received_local->Increment();
  history_.add(routed);
  router_.route(routed);
  if (tree_) tree_->publishLocal(routed, ftb::fromProto(e.id()).publisherKey());
}

}  // namespace ftb::agent
