#include "agent/clients/client_service.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "agent/security/last_will.h"
#include "agent/security/origin_check.h"
#include "client/event.h"
#include "client/event_limits.h"
#include "client/names.h"
#include "client/wire/codec.h"

namespace ftb::agent {

ClientSession* ClientService::active(const std::string& routing_id) {
  ClientSession* session = p_.sessions.find(routing_id);
  if (session != nullptr) session->last_seen = p_.clock.steadyNow();
  return session;
}

void ClientService::onHello(const std::string& routing_id, const proto::Envelope& envelope,
                            const Sender& sender) {
  const std::optional<PeerCredentials>& peer = sender.local;
  const proto::Hello& hello = envelope.hello();
  Result<std::string> space = normalizeEventSpace(hello.event_space());
  if (!space.ok()) {
    return p_.replies.error(routing_id, proto::Error::INVALID_ARGUMENT, space.status().message(),
                            envelope.request_id());
  }
  for (const Status& s : {checkClientName(hello.client_name()), checkJobId(hello.job_id())}) {
    if (!s.ok())
      return p_.replies.error(routing_id, proto::Error::INVALID_ARGUMENT, s.message(), envelope.request_id());
  }
  if (hello.has_rank()) {
    if (Status s = checkRankedJob(hello.rank(), hello.job_id()); !s.ok())
      return p_.replies.error(routing_id, proto::Error::INVALID_ARGUMENT, s.message(), envelope.request_id());
  }
  EventId id{.host = hello.origin().host(),
             .pid = hello.origin().pid(),
             .process_start_ns = hello.origin().process_start_ns(),
             .client_instance = hello.client_instance()};
  // A local client's origin is its own process (or one it speaks for): no one
  // publishes as another's process or claims it before it connects.
  if (Status s = checkOrigin(hello, sender, readLocalProcess); !s.ok()) {
    p_.metrics.refused(AgentMetrics::Refusal::kHelloOrigin);
    p_.log.warn("hello-origin", "refused a Hello as '{}' from {}: {}", cutForMessage(hello.client_name()),
                peer ? "uid " + std::to_string(peer->uid) + " pid " + std::to_string(peer->pid)
                     : std::string("a remote peer"),
                s.message());
    return p_.replies.error(routing_id, wire::codeToWire(s.code()), s.message(), envelope.request_id());
  }
  const std::string publisher_key = id.publisherKey();
  // Only the identity that opened a session under this origin may resume it:
  // anyone else would take over its publisher key and accepted sequence.
  if (Status s = p_.sessions.mayClaim(publisher_key, sender); !s.ok()) {
    p_.metrics.refused(AgentMetrics::Refusal::kHelloOrigin);
    const ClientSession* live = p_.sessions.byPublisher(publisher_key);
    p_.log.warn("hello-origin", "refused a Hello as '{}' claiming the origin of {} client '{}' ({}): {}",
                hello.client_name(), live != nullptr ? "live" : "departed",
                live != nullptr ? live->client_name : std::string("?"),
                p_.sessions.ownerOf(publisher_key)->describe(), s.message());
    return p_.replies.error(routing_id, proto::Error::PERMISSION_DENIED, s.message(), envelope.request_id());
  }
  // A client that reconnects (new socket) replaces its old session.
  if (ClientSession* old = p_.sessions.byPublisher(publisher_key)) {
    end(old->routing_id, SessionEnd::kReplaced, "the client reconnected");
  }
  if (p_.sessions.contains(routing_id)) {
    end(routing_id, SessionEnd::kReplaced, "it said Hello again");
  }

  auto session = std::make_unique<ClientSession>(p_.config.client_queue_events);
  session->routing_id = routing_id;
  session->client_name = hello.client_name();
  session->event_space = *space;
  session->job_id = hello.job_id();
  if (hello.has_rank()) session->rank = hello.rank();
  session->origin = hello.origin();
  session->client_instance = hello.client_instance();
  session->publisher_key = publisher_key;
  session->tree_key = sequenceKey(publisher_key, peer.has_value(), p_.config.name);
  session->principal = p_.admission.principalOf(sender);
  applyPolicy(*session);
  // The last will is checked like a publish, now: a will that could never be
  // published is refused while the client can still hear why.
  Result<std::optional<proto::Event>> will =
      lastWillFromHello(hello, session->event_space, p_.config.max_payload_bytes);
  if (!will.ok()) {
    return p_.replies.error(routing_id, wire::codeToWire(will.status().code()), will.status().message(),
                            envelope.request_id());
  }
  if (*will && !session->may_publish) {
    return p_.replies.error(routing_id, proto::Error::PERMISSION_DENIED,
                            "last_will: publishing into " + session->event_space +
                                " is not allowed for this client by the agent's namespace policy "
                                "(docs/SECURITY.md)",
                            envelope.request_id());
  }
  session->last_will = std::move(*will);
  if (peer) session->process = PidWatch::open(peer->pid);
  ClientSession& opened = p_.sessions.add(std::move(session), sender);  // sets opened.last_seq
  p_.departures.watch(opened);
  for (const auto& d : hello.declarations()) {
    Result<std::string> name = normalizeEventName(d.name());
    if (name.ok()) opened.declared[*name] = d.severity();
  }
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_hello_reply();
  r->set_agent_name(p_.config.name);
  r->set_agent_version(std::string(wire::kVersion));
  r->set_max_payload_bytes(p_.config.max_payload_bytes);
  r->set_heartbeat_interval_ms(p_.config.heartbeat_interval_ms);
  r->set_client_timeout_ms(p_.config.client_timeout_ms);
  r->set_session(opened.session);
  r->set_accepted_seq(opened.last_seq);
  spdlog::debug("client '{}' in {} connected (pid {}, uid {})", opened.client_name, opened.event_space,
                peer ? peer->pid : hello.origin().pid(),
                peer ? std::to_string(peer->uid) : std::string("unknown"));
  p_.counters.set_clients_connected_total(p_.counters.clients_connected_total() + 1);
  p_.replies.send(routing_id, answer);
}

void ClientService::onGoodbye(const std::string& routing_id) {
  if (p_.sessions.contains(routing_id)) end(routing_id, SessionEnd::kGoodbye, "it said goodbye");
}

void ClientService::end(const std::string& routing_id, SessionEnd how, std::string_view why) {
  ClientSession* s = p_.sessions.find(routing_id);
  if (s == nullptr) return;
  spdlog::debug("client '{}' in {} left: {}", s->client_name, s->event_space, why);
  p_.router.forget(s);
  p_.index.removeOwner(s);
  if (p_.tree && !s->subscriptions.empty()) p_.tree->interestChanged();
  // Kept alive until its will and notice are out (after it left the routing
  // table: nothing is delivered to the departed).
  std::unique_ptr<ClientSession> gone = p_.sessions.remove(routing_id);
  if (how == SessionEnd::kLost) {
    // Every client gone without a Goodbye: dead (pidfd) or silent (timeout).
    p_.counters.set_clients_expired(p_.counters.clients_expired() + 1);
    const bool will = p_.intake.publishLastWill(*gone);
    p_.intake.publishClientLost(*gone, why, will);
  }
}

void ClientService::onHeartbeat(ClientSession& session, const proto::Envelope& envelope) {
  proto::Envelope ok;
  ok.set_request_id(envelope.request_id());
  ok.mutable_ok();
  p_.replies.send(session.routing_id, ok);
}

void ClientService::housekeep() {
  expireSilent();
  forgetDeparted();
}

void ClientService::expireSilent() {
  const std::chrono::milliseconds timeout(p_.config.client_timeout_ms);
  for (const auto& id : p_.sessions.silentFor(timeout)) {
    end(id, SessionEnd::kLost, "no heartbeat within --client-timeout-ms");
  }
  // Replies are never shed, so a client that keeps asking and never reads
  // would make them pile up without bound: it is lost instead.
  std::vector<std::pair<std::string, std::size_t>> not_reading;
  for (const auto& [id, session] : p_.sessions) {
    const std::size_t queued = session->outbound.queuedReplyBytes();
    if (queued > maxClientFrameBytes(p_.config)) not_reading.emplace_back(id, queued);
  }
  for (const auto& [id, queued] : not_reading) {
    const std::string why = "it does not read its replies (" + std::to_string(queued) +
                            " bytes of them queued, the bound is " +
                            std::to_string(maxClientFrameBytes(p_.config)) + ")";
    end(id, SessionEnd::kLost, why);
    if (p_.local) p_.local->disconnect(id, why);
  }
  // A stream connection with no session that sent no whole frame for as long
  // (never said Hello, sends half a frame, or its session expired above) is
  // closed: nothing else would free its descriptor and buffers.
  if (!p_.local) return;
  for (const auto& id : p_.local->quietSince(std::chrono::steady_clock::now() - timeout)) {
    if (!p_.sessions.contains(id)) {
      p_.local->disconnect(id, "no session and no whole frame within --client-timeout-ms");
    }
  }
}

void ClientService::forgetDeparted() {
  // Long enough for any reconnect; short enough that a node running job after
  // job does not accumulate an entry per process forever.
  p_.sessions.forgetDeparted(std::chrono::milliseconds(p_.config.client_timeout_ms) * 10 +
                             std::chrono::minutes(5));
}

void ClientService::onSubscribe(ClientSession& session, const proto::Envelope& envelope) {
  const proto::Subscribe& request = envelope.subscribe();
  if (request.subscription_id() == kResponseInbox) {
    return p_.replies.error(session.routing_id, proto::Error::INVALID_ARGUMENT,
                            "subscription id 0 is reserved", envelope.request_id());
  }
  if (session.subscriptions.size() >= p_.config.max_subscriptions_per_client &&
      session.subscriptions.count(request.subscription_id()) == 0) {
    return p_.replies.error(session.routing_id, proto::Error::RESOURCE_EXHAUSTED,
                            "this client already holds " + std::to_string(session.subscriptions.size()) +
                                " subscriptions, the agent's --max-subscriptions-per-client",
                            envelope.request_id());
  }
  // One user's clients together, so that many clients cannot multiply the per-client bound.
  if (const std::optional<uint32_t> uid = session.principal.uid();
      uid && *uid != 0 && *uid != geteuid() && p_.config.max_subscriptions_per_uid > 0 &&
      session.subscriptions.count(request.subscription_id()) == 0) {
    if (const std::size_t held = p_.sessions.subscriptionsOf(*uid);
        held >= p_.config.max_subscriptions_per_uid) {
      return p_.replies.error(session.routing_id, proto::Error::RESOURCE_EXHAUSTED,
                              "uid " + std::to_string(*uid) + " already holds " + std::to_string(held) +
                                  " subscriptions on this agent, its --max-subscriptions-per-uid",
                              envelope.request_id());
    }
  }
  Result<Filter> filter = Filter::parse(request.filter());
  if (!filter.ok()) {
    return p_.replies.error(session.routing_id, proto::Error::INVALID_ARGUMENT, filter.status().message(),
                            envelope.request_id());
  }
  std::vector<RoutedEventPtr> replay;
  bool complete = true;
  if (request.has_history()) {
    // What the client may not see is left out before counting (p_.historyevents).
    if (request.history().has_since()) {
      replay = visibleTo(p_.admission, session.principal,
                         p_.history.since(request.history().since(), *filter, &complete), p_.history.size());
    } else {
      const std::size_t n = request.history().last_n();
      replay = visibleTo(
          p_.admission, session.principal,
          p_.history.lastN(p_.admission.everyoneSeesEverything() ? n : p_.history.size(), *filter), n);
    }
  }
  session.subscriptions.insert_or_assign(request.subscription_id(),
                                         Subscription{request.subscription_id(), *filter});
  p_.index.add(&session, request.subscription_id(), *filter);
  if (p_.tree) p_.tree->interestChanged();
  proto::Envelope answer;
  answer.set_request_id(envelope.request_id());
  auto* r = answer.mutable_subscribe_reply();
  r->set_subscription_id(request.subscription_id());
  r->set_history_events(static_cast<uint32_t>(replay.size()));
  r->set_history_complete(complete);
  if (auto newest = p_.history.newestId()) *r->mutable_history_mark() = *newest;
  p_.replies.send(session.routing_id, answer);
  const std::vector<uint32_t> ids{request.subscription_id()};
  for (const auto& e : replay) p_.router.enqueue(session, e, ids);
}

void ClientService::onUnsubscribe(ClientSession& session, const proto::Envelope& envelope) {
  const uint32_t id = envelope.unsubscribe().subscription_id();
  if (session.subscriptions.erase(id) == 0) {
    return p_.replies.error(session.routing_id, proto::Error::NOT_FOUND,
                            "no subscription " + std::to_string(id) + " for this client",
                            envelope.request_id());
  }
  p_.index.remove(&session, id);
  if (p_.tree) p_.tree->interestChanged();
  proto::Envelope ok;
  ok.set_request_id(envelope.request_id());
  ok.mutable_ok();
  p_.replies.send(session.routing_id, ok);
}

void ClientService::applyPolicy(ClientSession& session) {
  if (auto uid = session.principal.uid();
      uid && p_.policy.needsGroups() && session.principal.groups.empty()) {
    session.principal.groups = groupsOf(*uid);
  }
  session.may_publish =
      p_.policy.allows(NamespacePolicy::Action::kPublish, session.event_space, session.principal);
  session.may_receive.clear();
}

}  // namespace ftb::agent
