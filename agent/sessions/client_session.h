// What the agent knows about one connected client (or ftbctl control peer).
// Threading: the agent's event-loop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "agent/loop/poller.h"
#include "agent/security/namespace_policy.h"
#include "agent/security/peer_credentials.h"
#include "agent/sessions/outbound_queue.h"
#include "agent/sessions/pid_watch.h"
#include "client/filter.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

struct Subscription {
  uint32_t id = 0;
  Filter filter;
};

struct ClientSession {
  explicit ClientSession(std::size_t queue_events) : outbound(queue_events) {}

  std::string routing_id;  // ZeroMQ ROUTER identity of the client's socket
  uint64_t session = 0;
  std::string client_name;
  std::string event_space;
  std::string job_id;
  std::optional<int32_t> rank;  // in job_id, as its Hello said
  proto::Origin origin;
  uint32_t client_instance = 0;
  std::string publisher_key;  // EventId::publisherKey() of this client's events
  std::string tree_key;       // what the tree counts their sequence under (client/event.h sequenceKey)
  // The `sender` the agent stamps on this client's events, encoded as a
  // serialized Event holding only it (appended to each event's bytes).
  std::string sender_suffix;
  Principal principal;     // who it is (principal.peer: a local client's kernel credentials)
  bool may_publish = true;  // into event_space, by the policy (recomputed on reload)
  std::unordered_map<std::string, bool> may_receive;  // namespace -> subscribe policy, cached
  std::unordered_map<std::string, proto::Severity> declared;  // event name -> severity
  std::map<uint32_t, Subscription> subscriptions;

  std::chrono::steady_clock::time_point last_seen;
  std::chrono::system_clock::time_point connected_at;
  uint64_t last_seq = 0;   // highest event sequence accepted from this client
  bool ack_due = false;    // a PublishAck is owed (see Agent::sendAcks)
  std::chrono::steady_clock::time_point ack_due_since;
  uint32_t unacked_events = 0;
  OutboundQueue outbound;  // frames waiting while the client's socket is full

  // Last will (proto LastWill), validated at Hello: published by the agent if
  // the session ends without a Goodbye (ClientService::end, SessionEnd::kLost).
  std::optional<proto::Event> last_will;
  // The client's process (IPC peers): its pidfd turns readable when it exits,
  // then the agent probes the socket until ZeroMQ reports it gone.
  std::optional<PidWatch> process;
  Poller::Registration process_watch;  // the pidfd in the loop's poller until it fires
  bool process_exited = false;
  std::chrono::steady_clock::time_point probe_until;
  // Its socket is gone but its process lives (or is unknown: TCP): it may
  // reconnect and say Hello again; otherwise it expires as lost.
  bool socket_gone = false;

  uint64_t events_published = 0;
  uint64_t events_delivered = 0;
};

}  // namespace ftb::agent
