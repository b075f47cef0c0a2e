// The control API that ftbctl talks to: status, clients, history, tree.
#include <chrono>

#include "agent/agent.h"
#include "client/codec.h"

namespace ftb::agent {
namespace {

// HistoryQuery's optional bounds on the publish time (ftbctl history --since/--until).
bool withinTimeBounds(const proto::Event& event, const proto::HistoryQuery& query) {
  const int64_t published = event.time_sec() * 1'000'000'000 + event.time_nsec();
  return (query.since_unix_ns() == 0 || published >= query.since_unix_ns()) &&
         (query.until_unix_ns() == 0 || published <= query.until_unix_ns());
}

}  // namespace

void Agent::onStatus(const std::string& routing_id, const proto::Envelope& envelope) {
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_status_reply();
  r->set_agent_name(config_.name);
  r->set_version(std::string(wire::kVersion));
  r->set_protocol_version(wire::kProtocolVersion);
  r->set_uptime_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started_)
                       .count());
  uint32_t subscriptions = 0;
  for (const auto& [id, s] : sessions_) subscriptions += s->subscriptions.size();
  r->set_clients(sessions_.size());
  r->set_subscriptions(subscriptions);
  *r->mutable_counters() = counters_;
  if (curve_auth_) {
    r->mutable_counters()->set_auth_refused(curve_auth_->refused());
    r->set_last_auth_refusal(curve_auth_->lastRefusal());
  }
  for (const auto& e : endpoints_) r->add_endpoints(e);
  r->set_history_events(history_.size());
  reply(routing_id, answer);
}

void Agent::onClients(const std::string& routing_id, const proto::Envelope& envelope) {
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_clients_reply();
  for (const auto& [id, s] : sessions_) {
    auto* c = r->add_clients();
    c->set_client_name(s->client_name);
    c->set_event_space(s->event_space);
    c->set_job_id(s->job_id);
    *c->mutable_origin() = s->origin;
    auto* peer = c->mutable_peer();
    peer->set_agent(config_.name);
    if (s->peer) {
      peer->set_uid(s->peer->uid);
      peer->set_pid(s->peer->pid);
      peer->set_credentials_known(true);
    }
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
  reply(routing_id, answer);
}

void Agent::onHistoryQuery(const std::string& routing_id, const proto::Envelope& envelope,
                            const Sender& sender) {
  const proto::HistoryQuery& query = envelope.history_query();
  Result<Filter> filter = Filter::parse(query.filter());
  if (!filter.ok()) {
    return replyError(routing_id, proto::Error::INVALID_ARGUMENT, filter.status().message(),
                      envelope.request_id());
  }
  const std::size_t n = query.last_n() == 0 ? history_.size() : query.last_n();
  // The same subscribe check as live delivery: the querier sees what it could subscribe to.
  Principal who = admission_.principalOf(sender);
  if (who.peer && policy_.needsGroups()) who.groups = groupsOf(who.peer->uid);
  const bool bounded = query.since_unix_ns() != 0 || query.until_unix_ns() != 0;
  std::vector<RoutedEventPtr> candidates =
      history_.lastN(admission_.everyoneSeesEverything() && !bounded ? n : history_.size(), *filter);
  if (bounded) {  // the newest n among the matches within the bounds
    std::erase_if(candidates, [&](const RoutedEventPtr& e) { return !withinTimeBounds(e->event, query); });
  }
  const auto events = visibleTo(who, std::move(candidates), n);
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_history_reply();
  for (const auto& e : events) r->add_events(*e->bytes);
  reply(routing_id, answer);
}

void Agent::onTreeQuery(const std::string& routing_id, const proto::Envelope& envelope) {
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  fillTreeInfo(answer.mutable_tree_info());
  reply(routing_id, answer);
}

}  // namespace ftb::agent
