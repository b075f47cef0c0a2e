// What the agent publishes for a client gone without a Goodbye (its session
// lost: Departures, or --client-timeout-ms): the client's last will and
// FTB_CLIENT_LOST in FTB.AGENT. docs/RECOVERY_EVENTS.md, "Last will".
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/security/last_will.h"
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
  sendToTree(routed, sequenceKey(key, session.principal.peer.has_value(), config_.name));
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

}  // namespace ftb::agent
