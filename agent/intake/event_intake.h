// EventIntake: every event that enters the backplane at this agent. A
// client's publish is checked against its declarations, the namespace policy
// and the limits, stamped with the sender the kernel names, acknowledged in
// batches; the agent's own events (FTB.AGENT notices, a lost client's last
// will) are made here. Each one is kept in the history, routed to the local
// subscribers and handed to the tree.
//
//   EventIntake intake(parts, incarnation);
//   intake.onDeclare(session, envelope);  intake.onPublish(session, events);
//   each turn: intake.sendAcks();
//   a client lost: bool will = intake.publishLastWill(session); intake.publishClientLost(session, why, will);
//
// Threading: the agent's event loop only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "agent/config/config.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/replies.h"
#include "agent/routing/router.h"
#include "agent/security/namespace_policy.h"
#include "agent/sessions/session_table.h"
#include "agent/tree_bridge/tree_bridge.h"
#include "client/clock.h"
#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// How long a publisher waits at most for the acknowledgement of an event.
inline constexpr std::chrono::milliseconds kAckDelay{2};

class EventIntake {
 public:
  struct Parts {
    const AgentConfig& config;
    SessionTable& sessions;  // accepted sequences, acks due, will sequences
    Router& router;          // history and local delivery
    const std::unique_ptr<TreeBridge>& tree;  // null without a tree
    const NamespacePolicy& policy;  // who may publish where, for refusals that say so
    AgentMetrics& metrics;
    proto::Counters& counters;
    RateLimitedLog& log;
    Replies& replies;
    FrameSink& sink;  // acknowledgements
    const Clock& clock;
  };
  // `incarnation`: this run of the agent (the origin of its own events).
  EventIntake(Parts parts, uint64_t incarnation) : p_(parts), incarnation_(incarnation) {}

  // A client's Declare: its event names and their severities.
  void onDeclare(ClientSession& session, const proto::Envelope& envelope);
  // A client's Publish: each event accepted, or refused with an Error that says why.
  void onPublish(ClientSession& session, std::span<const std::string_view> events);
  // PublishAcks that are due (every kAckEvents events, or kAckDelay after the first).
  void sendAcks();

  // Whether the will went out (a client has one; it goes out at most once).
  bool publishLastWill(ClientSession& session);
  // FTB_CLIENT_LOST for a session that ended without a Goodbye.
  void publishClientLost(const ClientSession& session, std::string_view why, bool will_published);
  // An FTB.AGENT event of this agent.
  void publishAgentEvent(const std::string& name, proto::Severity severity, std::string payload,
                         const std::unordered_map<std::string, std::string>& tags = {});

 private:
  // `routed->event` is parsed from `bytes`; the rest is filled in when accepted.
  Status acceptEvent(ClientSession& session, std::string_view bytes,
                     const std::shared_ptr<RoutedEvent>& routed);

  Parts p_;
  const uint64_t incarnation_;
  uint64_t agent_event_seq_ = 0;  // sequence of the agent's own FTB.AGENT events
  // The event being accepted, parsed in place: reused while no one else holds
  // it, so its strings keep their buffers from one event to the next.
  std::shared_ptr<RoutedEvent> accepting_;
};

}  // namespace ftb::agent
