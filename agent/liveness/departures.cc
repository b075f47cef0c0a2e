#include "agent/liveness/departures.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "client/wire/codec.h"

namespace ftb::agent {

void Departures::watch(ClientSession& session) {
  if (!session.process) return;
  Result<Poller::Registration> watched = parts_.poller.watch(
      session.process->fd(), EPOLLIN, [this, s = &session](uint32_t) { onProcessExited(*s); });
  if (watched.ok()) {
    session.process_watch = std::move(watched).value();
  } else {  // the heartbeat timeout remains
    parts_.log.warn("pidfd", "cannot watch the process of client '{}': {}", session.client_name,
                    watched.status().message());
  }
}

void Departures::socketGone(std::string routing_id) {
  if (parts_.sessions.contains(routing_id)) gone_.push_back(std::move(routing_id));
}

void Departures::onProcessExited(ClientSession& s) {
  s.process_watch.reset();  // a pidfd stays readable: once is enough
  s.process_exited = true;
  s.probe_until = parts_.clock.steadyNow() + std::chrono::milliseconds(parts_.config.client_timeout_ms);
  // Its socket closed first (a stream socket's EOF comes before the pidfd): settle it now.
  if (s.socket_gone) departed_.push_back(s.routing_id);
}

bool Departures::probing() const {
  return std::any_of(parts_.sessions.begin(), parts_.sessions.end(),
                     [](const auto& entry) { return entry.second->process_exited; });
}

void Departures::settle() {
  std::vector<std::string> departed;
  departed.swap(departed_);
  for (const auto& id : departed) {
    ClientSession* s = parts_.sessions.find(id);
    if (s == nullptr) continue;  // said Goodbye, or Hello again, meanwhile
    if (s->process && (s->process_exited || s->process->exited())) {
      lost_(id, "its process exited");
    } else if (!s->socket_gone) {
      s->socket_gone = true;
      spdlog::debug("client '{}' in {}: socket gone, process alive or unknown; waiting for its "
                    "Hello or --client-timeout-ms", s->client_name, s->event_space);
    }
  }
}

void Departures::endTurn(std::chrono::steady_clock::time_point now) {
  static const std::string probe = [] {
    proto::Envelope ok;
    ok.mutable_ok();  // request_id 0: answers nothing, the SDK drops it
    return wire::encode(ok);
  }();
  for (const auto& [id, s] : parts_.sessions) {
    if (!s->process_exited || s->socket_gone) continue;
    if (now > s->probe_until) {
      // The socket outlived the process (inherited by a child?): the
      // heartbeat timeout decides.
      s->process_exited = false;
      s->process_watch.reset();
      s->process.reset();
      continue;
    }
    (void)parts_.sink.trySend(id, probe);  // a gone peer comes back through socketGone
  }
  // Settled next turn, after every frame the peer sent before its socket went
  // has been read (ZeroMQ hands them over before it forgets the peer).
  for (auto& id : gone_) {
    if (std::find(departed_.begin(), departed_.end(), id) == departed_.end()) {
      departed_.push_back(std::move(id));
    }
  }
  gone_.clear();
}

std::vector<std::string> Departures::takeGone() {
  std::vector<std::string> gone;
  gone.swap(gone_);
  return gone;
}

}  // namespace ftb::agent
