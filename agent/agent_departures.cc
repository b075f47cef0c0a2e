// Clients that vanish without a Goodbye: how the agent notices within
// milliseconds, and what it publishes then (the client's last will and
// FTB_CLIENT_LOST in FTB.AGENT). docs/RECOVERY_EVENTS.md, "Last will".
//
// A stream client's (unix://) connection reports its end itself: the
// LocalStreamServer's EOF puts it on doomed_ after its last frames were read.
// ZeroMQ tells a ROUTER nothing when a peer's connection closes; it only
// answers EHOSTUNREACH (router_mandatory) once the pipe is gone. So:
//  1. a local client's process is watched through a pidfd (from the IPC
//     socket's peer credentials); it turns readable when the process exits;
//  2. the agent then probes the client's socket every turn (a request-less
//     Ok frame, which the SDK ignores) until ZeroMQ reports it gone;
//  3. the session is removed as lost only in a later turn that has read
//     every pending frame: ZeroMQ hands over a peer's frames before it
//     forgets the peer, so a Goodbye sent just before a clean exit wins.
// A socket that goes while its process lives (the SDK reconnects, or a TCP
// client, whose process the agent cannot watch) keeps the session until the
// client says Hello again (no will) or --client-timeout-ms passes (lost).
#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/security/last_will.h"
#include "client/event.h"
#include "client/payload_fields.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {

void Agent::watchProcess(ClientSession& session) {
  if (!session.process) return;
  Result<Poller::Registration> watched = poller_->watch(
      session.process->fd(), EPOLLIN, [this, s = &session](uint32_t) { onProcessExited(*s); });
  if (watched.ok()) {
    session.process_watch = std::move(watched).value();
  } else {  // the heartbeat timeout remains
    log_.warn("pidfd", "cannot watch the process of client '{}': {}", session.client_name,
              watched.status().message());
  }
}

void Agent::onProcessExited(ClientSession& s) {
  s.process_watch.reset();  // a pidfd stays readable: once is enough
  s.process_exited = true;
  s.probe_until = clock_.steadyNow() + std::chrono::milliseconds(config_.client_timeout_ms);
  // Its socket closed first (a stream socket's EOF comes before the pidfd): settle it now.
  if (s.socket_gone) departed_.push_back(s.routing_id);
}

void Agent::probeExitedClients(std::chrono::steady_clock::time_point now) {
  static const std::string probe = [] {
    proto::Envelope ok;
    ok.mutable_ok();  // request_id 0: answers nothing, the SDK drops it
    return wire::encode(ok);
  }();
  for (auto& [id, s] : sessions_) {
    if (!s->process_exited || s->socket_gone) continue;
    if (now > s->probe_until) {
      // The socket outlived the process (inherited by a child?): the
      // heartbeat timeout decides.
      s->process_exited = false;
      s->process_watch.reset();
      s->process.reset();
      continue;
    }
    (void)trySend(id, probe);  // EHOSTUNREACH puts it on doomed_
  }
}

void Agent::settleDeparted() {
  std::vector<std::string> departed;
  departed.swap(departed_);
  for (const auto& id : departed) {
    ClientSession* s = sessions_.find(id);
    if (s == nullptr) continue;  // said Goodbye, or Hello again, meanwhile
    if (s->process && (s->process_exited || s->process->exited())) {
      removeSession(id, SessionEnd::kLost, "its process exited");
    } else if (!s->socket_gone) {
      s->socket_gone = true;
      spdlog::debug("client '{}' in {}: socket gone, process alive or unknown; waiting for its "
                    "Hello or --client-timeout-ms", s->client_name, s->event_space);
    }
  }
}

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
