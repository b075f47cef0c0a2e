#include "agent/routing/router.h"

#include <algorithm>

#include "client/event.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {
namespace {

std::chrono::system_clock::time_point publishTime(const proto::Event& event) {
  return std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::seconds(event.time_sec()) + std::chrono::nanoseconds(event.time_nsec())));
}

}  // namespace

void Router::publish(const RoutedEventPtr& routed) {
  p_.history.add(routed);
  route(routed);
}

void Router::route(const RoutedEventPtr& routed) {
  const proto::Event& event = routed->event;
  ClientSession* inbox_owner = nullptr;
  if (event.type() == proto::RESPONSE) {
    inbox_owner = p_.sessions.byPublisher(fromProto(event.response_to()).publisherKey());
  }
  // The index yields each session's matching ids contiguous and ascending:
  // the same list, in the same order, as scanning session->subscriptions.
  p_.index.matching(event, matches_);
  const std::vector<SubscriptionIndex::Match>& matches = matches_;
  if (matches.empty() && inbox_owner == nullptr) return;
  const Metered metered = meter(event);
  // The namespace an agent event tells of, checked only where the policy hides some namespace.
  const std::string told_of(p_.admission.everyoneSeesEverything() ? std::string_view() : namespaceToldOf(event));
  std::vector<uint32_t>& ids = ids_;
  for (std::size_t i = 0; i < matches.size();) {
    auto* session = const_cast<ClientSession*>(static_cast<const ClientSession*>(matches[i].owner));
    ids.clear();
    for (; i < matches.size() && matches[i].owner == session; ++i) ids.push_back(matches[i].id);
    if (!mayReceive(*session, event.event_space()) ||
        (!told_of.empty() && !mayReceive(*session, told_of))) {
      metered.series->withheld->Increment();
      continue;
    }
    if (session == inbox_owner) ids.push_back(kResponseInbox);
    enqueue(*session, routed, ids, metered);
  }
  // The requester of a response gets it even when no subscription of its own matches.
  if (inbox_owner != nullptr &&
      !std::any_of(matches.begin(), matches.end(),
                   [&](const SubscriptionIndex::Match& m) { return m.owner == inbox_owner; })) {
    const uint32_t inbox[] = {kResponseInbox};
    enqueue(*inbox_owner, routed, inbox, metered);
  }
}

Router::Metered Router::meter(const proto::Event& event) {
  return {&p_.metrics.events(event.event_space(), event.severity()), publishTime(event)};
}

void Router::enqueue(ClientSession& session, const RoutedEventPtr& routed,
                     const std::vector<uint32_t>& subscription_ids) {
  enqueue(session, routed, subscription_ids, meter(routed->event));
}

void Router::enqueue(ClientSession& session, const RoutedEventPtr& routed, std::span<const uint32_t> ids,
                     const Metered& metered) {
  Batch& batch = batches_[&session];
  batch.metered.emplace_back(metered.series, metered.published);
  batch.frame.add(*routed->bytes, ids);
  if (batch.frame.events() >= kMaxDeliveriesPerFrame) {
    Batch full = std::move(batch);
    batch = Batch{};
    send(session, full);
  }
}

void Router::flush() {
  for (auto& [session, batch] : batches_) {
    if (batch.frame.events() > 0) send(*const_cast<ClientSession*>(session), batch);
  }
  batches_.clear();
}

void Router::send(ClientSession& session, Batch& batch) {
  OutboundQueue& out = session.outbound;
  const uint32_t events = batch.frame.events();
  std::string frame = batch.frame.finish(out.missedPending(), out.missedBySubscription());
  const bool sent = out.empty() && p_.sink.trySend(session.routing_id, frame);
  if (!sent && !out.push(std::move(frame), events)) {
    out.addMissed(events);
    for (uint32_t id : batch.frame.subscriptionIds()) out.addMissedFor(id, 1);
    p_.counters.set_events_dropped(p_.counters.events_dropped() + events);
    for (const auto& [series, published] : batch.metered) series->dropped->Increment();
    return;
  }
  out.clearMissedPending();  // the counts travel in this frame
  const auto now = p_.clock.systemNow();
  for (const auto& [series, published] : batch.metered) {
    series->delivered->Increment();
    p_.metrics.observeDelivery(published, now);
  }
  session.events_delivered += events;
  p_.counters.set_events_out(p_.counters.events_out() + events);
}

bool Router::mayReceive(ClientSession& session, const std::string& event_space) {
  if (p_.admission.everyoneSeesEverything()) return true;
  auto [it, fresh] = session.may_receive.try_emplace(event_space, false);
  if (fresh) {
    it->second = p_.admission.maySee(session.principal, event_space);
    if (!it->second) {
      p_.log.warn("policy-subscribe", "client '{}' ({}) may not receive events of {}: withheld by the "
                  "namespace policy", session.client_name,
                  session.principal.describe(),
                  event_space);
    }
  }
  return it->second;
}

void Router::sendQueued() {
  for (const auto& [id, s] : p_.sessions) {
    OutboundQueue& out = s->outbound;
    while (!out.empty() && p_.sink.trySend(id, out.front())) out.pop();
    if (out.empty() && out.missedPending() > 0) {
      const std::string notice = DeliverFrame{}.finish(out.missedPending(), out.missedBySubscription());
      if (p_.sink.trySend(id, notice)) out.clearMissedPending();
    }
  }
}

}  // namespace ftb::agent
