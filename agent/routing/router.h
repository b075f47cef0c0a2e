// Router: where an admitted event goes on this agent. It keeps the event in
// the history, finds the matching subscriptions through the SubscriptionIndex,
// applies the one subscribe check (Admission::maySee, cached per session and
// namespace), adds the response inbox (subscription id 0) of the requester of
// a RESPONSE, and batches deliveries per session: one Deliver frame per
// session and turn (at most kMaxDeliveriesPerFrame events), sent through the
// FrameSink or queued in the session's OutboundQueue, or counted as missed
// and told in the next frame when that is full.
//
//   Router router({sessions, index, history, admission, metrics, counters, log, sink, clock});
//   router.publish(event);   // history, then route
//   router.flush();          // once per loop turn
//   router.sendQueued();     // each turn too: frames that waited for room
//
// Threading: not thread-safe; the agent's event-loop thread alone owns and
// calls it. It holds references to the agent's state (no sockets: the agent's
// loop is the FrameSink), and time comes from the Clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/deliver_frame.h"
#include "agent/routing/event_history.h"
#include "agent/routing/subscription_index.h"
#include "agent/security/admission.h"
#include "agent/sessions/session_table.h"
#include "client/clock.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

inline constexpr uint32_t kMaxDeliveriesPerFrame = 256;
inline constexpr uint32_t kResponseInbox = 0;  // reserved subscription id: responses to my requests

// Where frames for clients go: the agent's ROUTER socket, a fake in tests.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Hands `frame` to the client at `routing_id` without blocking; false when
  // its pipe is full (the frame is then the caller's to queue).
  virtual bool trySend(const std::string& routing_id, const std::string& frame) = 0;
  // False when the client is known to leave what was sent unread, so that a
  // frame built for it now would not be kept; true when the transport cannot tell.
  virtual bool hasRoom(const std::string& /*routing_id*/) { return true; }
};

class Router {
 public:
  struct Parts {
    const SessionTable& sessions;
    const SubscriptionIndex& index;  // owners are ClientSession*
    EventHistory& history;
    const Admission& admission;
    AgentMetrics& metrics;
    proto::Counters& counters;
    RateLimitedLog& log;
    FrameSink& sink;
    const Clock& clock;
  };
  explicit Router(Parts parts) : p_(parts) {}

  // An admitted event: kept in the history, then routed.
  void publish(const RoutedEventPtr& event);
  // Queues a delivery for every local session that may receive `event`.
  void route(const RoutedEventPtr& event);
  // Queues one delivery of `event` to `session` under `subscription_ids`
  // (the replay at subscribe time uses it directly).
  void enqueue(ClientSession& session, const RoutedEventPtr& event,
               const std::vector<uint32_t>& subscription_ids);
  // Sends (or queues, or counts as missed) every batch built so far.
  void flush();
  // Retries what waits in each session's OutboundQueue, oldest first, as far
  // as the sink takes it; a loss at the end of a flood, which no later batch
  // would carry, goes out on its own once the queue has drained.
  void sendQueued();
  // Drops `session`'s unsent batch: it is leaving.
  void forget(const ClientSession* session) { batches_.erase(session); }

  // The subscribe check for live delivery, cached in the session (cleared by
  // the agent when the policy changes).
  bool mayReceive(ClientSession& session, const std::string& event_space);

 private:
  struct Batch {
    DeliverFrame frame;
    // Per delivery: its metric series and publish time (counted once the batch is sent or lost).
    std::vector<std::pair<EventSeries*, std::chrono::system_clock::time_point>> metered;
  };
  // One event's metric series and publish time, looked up once for all its deliveries.
  struct Metered {
    EventSeries* series;
    std::chrono::system_clock::time_point published;
  };
  Metered meter(const proto::Event& event);
  void enqueue(ClientSession& session, const RoutedEventPtr& event, std::span<const uint32_t> ids,
               const Metered& metered);
  void send(ClientSession& session, Batch& batch);

  Parts p_;
  std::unordered_map<const ClientSession*, Batch> batches_;  // deliveries built this turn
  // route()'s working lists, kept so that routing an event allocates nothing.
  std::vector<SubscriptionIndex::Match> matches_;
  std::vector<uint32_t> ids_;
};

}  // namespace ftb::agent
