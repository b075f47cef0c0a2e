// SessionTable: the agent's connected clients and what it remembers of their
// publishers. Sessions are found by ROUTER routing id and by publisher key
// (EventId::publisherKey(), the client's origin); a Hello opens one, a Goodbye,
// a reconnect or an expiry closes it. Per publisher key the table keeps the
// highest accepted sequence (a reconnecting client is told it in HelloReply,
// so re-sent events are not routed twice) and who first said Hello with that
// key (only the same identity may resume it: Admission::mayResume), for a
// while after the client left.
//
//   SessionTable sessions(clock);
//   if (Status s = sessions.mayClaim(key, sender); !s.ok()) refuse(s);
//   ClientSession& s = sessions.add(std::move(session), sender);  // s.last_seq: where to resume
//   sessions.recordAccepted(s, seq);
//   std::unique_ptr<ClientSession> gone = sessions.remove(s.routing_id);
//
// No sockets and no policy here: the agent's loop decides what a removal
// entails (subscriptions, batches, last will). Time comes from the Clock.
// Threading: not thread-safe; the agent's event-loop thread alone owns and
// calls it, and the ClientSession objects it hands out are that thread's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/security/admission.h"
#include "agent/sessions/client_session.h"
#include "client/clock.h"
#include "client/status.h"

namespace ftb::agent {

class SessionTable {
 public:
  using Map = std::unordered_map<std::string, std::unique_ptr<ClientSession>>;  // by routing id

  explicit SessionTable(const Clock& clock) : clock_(clock) {}
  SessionTable(const SessionTable&) = delete;
  SessionTable& operator=(const SessionTable&) = delete;

  // Lookups; nullptr when absent.
  ClientSession* find(const std::string& routing_id) const;
  ClientSession* byPublisher(const std::string& publisher_key) const;
  bool contains(const std::string& routing_id) const { return sessions_.count(routing_id) != 0; }
  std::size_t size() const { return sessions_.size(); }
  bool empty() const { return sessions_.empty(); }
  // Every session, as (routing id, session); the sessions themselves are mutable.
  Map::const_iterator begin() const { return sessions_.begin(); }
  Map::const_iterator end() const { return sessions_.end(); }

  // The Hello check: OK when `publisher_key` is unknown, or `claimant` is the
  // identity that first said Hello with it (live or departed within the keep
  // time); kPermissionDenied otherwise, saying why.
  Status mayClaim(const std::string& publisher_key, const Sender& claimant) const;
  // Who holds `publisher_key` (nullptr when unknown), for messages.
  const OriginOwner* ownerOf(const std::string& publisher_key) const;

  // Opens the session said Hello by `sender` (routing_id and publisher_key set;
  // a session already under either must have been removed). Sets its session
  // number, last_seen, connected_at and last_seq (the key's accepted sequence),
  // and makes `sender` the key's owner.
  ClientSession& add(std::unique_ptr<ClientSession> session, const Sender& sender);
  // Closes a session: gone from both lookups, its publisher key marked
  // departed (kept for forgetDeparted). nullptr when there is none.
  std::unique_ptr<ClientSession> remove(const std::string& routing_id);

  // An event with sequence `seq` > session.last_seq was accepted from the
  // session: remembered for its key, and a PublishAck becomes due.
  void recordAccepted(ClientSession& session, uint64_t seq);
  // The highest sequence accepted under `publisher_key` (0: none or unknown).
  uint64_t acceptedSeq(const std::string& publisher_key) const;
  // A last will goes out at most once per publisher key (it is published with
  // sequence 1): true and the key marked departed with sequence 1 the first
  // time, false when something was accepted under the key already.
  bool claimWillSequence(const std::string& publisher_key);

  // Routing ids of the sessions not seen for longer than `timeout`.
  std::vector<std::string> silentFor(std::chrono::milliseconds timeout) const;
  // Subscriptions held by the sessions of `uid` (Principal::uid) together.
  std::size_t subscriptionsOf(uint32_t uid) const;
  // Forgets the keys of publishers departed longer than `keep` ago.
  void forgetDeparted(std::chrono::milliseconds keep);
  std::size_t knownPublishers() const { return known_.size(); }

 private:
  struct KnownPublisher {
    uint64_t accepted_seq = 0;
    bool connected = false;
    std::chrono::steady_clock::time_point departed;
    OriginOwner owner;  // who said Hello with this key first: only it may resume it
  };

  const Clock& clock_;
  uint64_t next_session_ = 1;
  Map sessions_;
  std::unordered_map<std::string, ClientSession*> by_publisher_;  // publisher key -> session
  std::unordered_map<std::string, KnownPublisher> known_;         // publisher key
};

}  // namespace ftb::agent
