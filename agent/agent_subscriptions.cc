// A client's subscriptions: Subscribe (with its history replay) and Unsubscribe,
// kept in step with the subscription index and the tree's interest.
#include <unistd.h>

#include "agent/agent.h"

namespace ftb::agent {

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
