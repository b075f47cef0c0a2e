#include "agent/control/control_service.h"

#include "agent/config/config_check.h"

#include "agent/security/verified_sender.h"
#include "client/wire/codec.h"

namespace ftb::agent {
namespace {

// HistoryQuery's optional bounds on the publish time (ftbctl history --since/--until).
bool withinTimeBounds(const proto::Event& event, const proto::HistoryQuery& query) {
  const int64_t published = event.time_sec() * 1'000'000'000 + event.time_nsec();
  return (query.since_unix_ns() == 0 || published >= query.since_unix_ns()) &&
         (query.until_unix_ns() == 0 || published <= query.until_unix_ns());
}

proto::Envelope replyTo(const proto::Envelope& request) {
  proto::Envelope answer;
  answer.set_request_id(request.request_id());
  return answer;
}

}  // namespace

bool ControlService::serves(proto::Envelope::BodyCase type) {
  using B = proto::Envelope;
  return type == B::kStatusRequest || type == B::kClientsRequest || type == B::kHistoryQuery ||
         type == B::kTreeQuery;
}

proto::Envelope ControlService::answer(const proto::Envelope& request, const Sender& sender) const {
  using B = proto::Envelope;
  switch (request.body_case()) {
    case B::kStatusRequest: return status(request, sender);
    case B::kClientsRequest: return clients(request, sender);
    case B::kHistoryQuery: return history(request, sender);
    case B::kTreeQuery: return tree(request);
    default:
      return wire::makeError(proto::Error::INVALID_ARGUMENT, "not a control request",
                             request.request_id());
  }
}

Principal ControlService::principalOf(const Sender& sender) const {
  Principal who = s_.admission.principalOf(sender);
  if (auto uid = who.uid(); uid && s_.policy.needsGroups()) who.groups = groupsOf(*uid);
  return who;
}

bool ControlService::mayKnowOf(const Principal& who, const ClientSession& session) const {
  if (s_.admission.everyoneSeesEverything()) return true;
  if (auto uid = who.uid(); uid && (*uid == 0 || session.principal.uid() == uid)) return true;
  return s_.admission.maySee(who, session.event_space);
}

proto::Envelope ControlService::status(const proto::Envelope& request, const Sender& sender) const {
  proto::Envelope answer = replyTo(request);
  auto* r = answer.mutable_status_reply();
  r->set_agent_name(s_.config.name);
  r->set_version(std::string(wire::kVersion));
  r->set_protocol_version(wire::kProtocolVersion);
  r->set_uptime_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                       s_.clock.steadyNow() - s_.started)
                       .count());
  // Counted over the clients the asker may know of (all of them unless the
  // namespace policy keeps some namespace from it).
  const Principal who = principalOf(sender);
  uint32_t clients = 0, subscriptions = 0;
  for (const auto& [id, s] : s_.sessions) {
    if (!mayKnowOf(who, *s)) continue;
    ++clients;
    subscriptions += s->subscriptions.size();
  }
  r->set_clients(clients);
  r->set_subscriptions(subscriptions);
  *r->mutable_counters() = s_.counters;
  if (hooks_.add_auth) hooks_.add_auth(*r);
  for (const auto& e : s_.endpoints) r->add_endpoints(e);
  r->set_history_events(s_.history.size());
  return answer;
}

proto::Envelope ControlService::clients(const proto::Envelope& request, const Sender& sender) const {
  proto::Envelope answer = replyTo(request);
  auto* r = answer.mutable_clients_reply();
  const Principal who = principalOf(sender);
  for (const auto& [id, s] : s_.sessions) {
    if (!mayKnowOf(who, *s)) continue;
    auto* c = r->add_clients();
    c->set_client_name(s->client_name);
    c->set_event_space(s->event_space);
    c->set_job_id(s->job_id);
    if (s->rank) c->set_rank(*s->rank);
    *c->mutable_origin() = s->origin;
    stampSender(*c->mutable_peer(), s_.config.name, s->principal);
    for (const auto& [sub_id, sub] : s->subscriptions) {
      auto* info = c->add_subscriptions();
      info->set_subscription_id(sub_id);
      info->set_filter(sub.filter.text());
    }
    for (const auto& [name, severity] : s->declared) {
      auto* d = c->add_declarations();
      d->set_name(name);
      d->set_severity(severity);
    }
    c->set_events_published(s->events_published);
    c->set_events_delivered(s->events_delivered);
    c->set_events_dropped(s->outbound.missedTotal());
    c->set_queue_depth(s->outbound.queuedEvents());
    c->set_connected_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                            s->connected_at.time_since_epoch())
                            .count());
  }
  return answer;
}

proto::Envelope ControlService::history(const proto::Envelope& request, const Sender& sender) const {
  const proto::HistoryQuery& query = request.history_query();
  Result<Filter> filter = Filter::parse(query.filter());
  if (!filter.ok()) {
    return wire::makeError(proto::Error::INVALID_ARGUMENT, filter.status().message(),
                           request.request_id());
  }
  const EventHistory& history = s_.history;
  const std::size_t n = query.last_n() == 0 ? history.size() : query.last_n();
  // The same subscribe check as live delivery: the querier sees what it could subscribe to.
  const Principal who = principalOf(sender);
  const bool bounded = query.since_unix_ns() != 0 || query.until_unix_ns() != 0;
  std::vector<RoutedEventPtr> candidates =
      history.lastN(s_.admission.everyoneSeesEverything() && !bounded ? n : history.size(), *filter);
  if (bounded) {  // the newest n among the matches within the bounds
    std::erase_if(candidates, [&](const RoutedEventPtr& e) { return !withinTimeBounds(e->event, query); });
  }
  const auto events = visibleTo(s_.admission, who, std::move(candidates), n);
  proto::Envelope answer = replyTo(request);
  auto* r = answer.mutable_history_reply();
  for (const auto& e : events) r->add_events(*e->bytes);
  return answer;
}

proto::Envelope ControlService::tree(const proto::Envelope& request) const {
  proto::Envelope answer = replyTo(request);
  proto::TreeInfo* info = answer.mutable_tree_info();
  info->set_uptime_ms(static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(s_.clock.steadyNow() - s_.started).count()));
  info->set_clients(static_cast<uint32_t>(s_.sessions.size()));
  if (!hooks_.fill_tree || !hooks_.fill_tree(info)) {
    // "off": a TCP endpoint but no cluster key (ftbctl tree says so and what to do).
    info->set_state(treeDisabledNotice(s_.config).empty() ? "disabled" : "off");
  }
  return answer;
}

}  // namespace ftb::agent
