#include "agent/sessions/session_table.h"

namespace ftb::agent {

ClientSession* SessionTable::find(const std::string& routing_id) const {
  auto it = sessions_.find(routing_id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

ClientSession* SessionTable::byPublisher(const std::string& publisher_key) const {
  auto it = by_publisher_.find(publisher_key);
  return it == by_publisher_.end() ? nullptr : it->second;
}

Status SessionTable::mayClaim(const std::string& publisher_key, const Sender& claimant) const {
  auto known = known_.find(publisher_key);
  if (known == known_.end()) return {};
  return Admission::mayResume(known->second.owner, claimant);
}

const OriginOwner* SessionTable::ownerOf(const std::string& publisher_key) const {
  auto known = known_.find(publisher_key);
  return known == known_.end() ? nullptr : &known->second.owner;
}

ClientSession& SessionTable::add(std::unique_ptr<ClientSession> session, const Sender& sender) {
  ClientSession& s = *session;
  s.session = next_session_++;
  s.last_seen = clock_.steadyNow();
  s.connected_at = clock_.systemNow();
  KnownPublisher& known = known_[s.publisher_key];
  known.connected = true;
  known.owner = OriginOwner::of(sender);
  s.last_seq = known.accepted_seq;
  by_publisher_[s.publisher_key] = &s;
  sessions_[s.routing_id] = std::move(session);
  return s;
}

std::unique_ptr<ClientSession> SessionTable::remove(const std::string& routing_id) {
  auto it = sessions_.find(routing_id);
  if (it == sessions_.end()) return nullptr;
  std::unique_ptr<ClientSession> gone = std::move(it->second);
  sessions_.erase(it);
  if (auto p = by_publisher_.find(gone->publisher_key); p != by_publisher_.end() && p->second == gone.get()) {
    by_publisher_.erase(p);
    KnownPublisher& known = known_[gone->publisher_key];
    known.connected = false;
    known.departed = clock_.steadyNow();
  }
  return gone;
}

void SessionTable::recordAccepted(ClientSession& session, uint64_t seq) {
  session.last_seq = seq;
  known_[session.publisher_key].accepted_seq = seq;
  if (!session.ack_due) session.ack_due_since = clock_.steadyNow();
  session.ack_due = true;
  ++session.unacked_events;
}

uint64_t SessionTable::acceptedSeq(const std::string& publisher_key) const {
  auto known = known_.find(publisher_key);
  return known == known_.end() ? 0 : known->second.accepted_seq;
}

bool SessionTable::claimWillSequence(const std::string& publisher_key) {
  KnownPublisher& known = known_[publisher_key];
  if (known.accepted_seq >= 1) return false;  // published already (the client came back and went again)
  known.accepted_seq = 1;
  known.connected = false;
  known.departed = clock_.steadyNow();
  return true;
}

std::vector<std::string> SessionTable::silentFor(std::chrono::milliseconds timeout) const {
  const auto now = clock_.steadyNow();
  std::vector<std::string> silent;
  for (const auto& [id, s] : sessions_) {
    if (now - s->last_seen > timeout) silent.push_back(id);
  }
  return silent;
}

std::size_t SessionTable::subscriptionsOf(uint32_t uid) const {
  std::size_t held = 0;
  for (const auto& [id, s] : sessions_) {
    if (s->principal.uid() == uid) held += s->subscriptions.size();
  }
  return held;
}

void SessionTable::forgetDeparted(std::chrono::milliseconds keep) {
  const auto now = clock_.steadyNow();
  std::erase_if(known_, [&](const auto& entry) {
    return !entry.second.connected && now - entry.second.departed > keep;
  });
}

}  // namespace ftb::agent
