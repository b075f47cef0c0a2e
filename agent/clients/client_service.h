// ClientService: a client's life at this agent. Hello opens its session (who
// it is by the kernel's word, its origin, its last will, its process watched);
// Subscribe and Unsubscribe keep its subscriptions, the index and the tree's
// interest in step (a subscription may start with a replay of the history);
// Heartbeat keeps it alive; Goodbye, a replacement, a departure or silence
// ends it, and only a lost client's end publishes its will and FTB_CLIENT_LOST.
// Publishing is EventIntake's.
//
//   ClientService clients(parts);
//   clients.onHello(routing_id, envelope, sender);
//   if (ClientSession* s = clients.active(routing_id)) clients.onSubscribe(*s, envelope);
//   housekeeping turn: clients.housekeep();
//
// Threading: the agent's event loop only.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "agent/config/config.h"
#include "agent/intake/event_intake.h"
#include "agent/liveness/departures.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/event_history.h"
#include "agent/routing/replies.h"
#include "agent/routing/router.h"
#include "agent/routing/subscription_index.h"
#include "agent/security/admission.h"
#include "agent/security/namespace_policy.h"
#include "agent/sessions/session_table.h"
#include "agent/transport/local_stream_server.h"
#include "agent/tree_bridge/tree_bridge.h"
#include "client/clock.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// How a session ended: only kLost publishes the client's last will and FTB_CLIENT_LOST.
enum class SessionEnd { kGoodbye, kReplaced, kLost, kShutdown };

class ClientService {
 public:
  struct Parts {
    const AgentConfig& config;
    SessionTable& sessions;
    SubscriptionIndex& index;  // owners are ClientSession*: kept in step with their subscriptions
    Router& router;
    const EventHistory& history;  // replays at Subscribe
    const Admission& admission;
    const NamespacePolicy& policy;
    Replies& replies;
    EventIntake& intake;  // a lost client's will and notice
    Departures& departures;  // watches a local client's process from Hello on
    const std::unique_ptr<TreeBridge>& tree;  // null without a tree
    const std::unique_ptr<LocalStreamServer>& local;  // null when --local-endpoint is none
    AgentMetrics& metrics;
    proto::Counters& counters;
    RateLimitedLog& log;
    const Clock& clock;
  };
  explicit ClientService(Parts parts) : p_(parts) {}

  // The routing id's session, marked as heard from now; null without one.
  ClientSession* active(const std::string& routing_id);

  void onHello(const std::string& routing_id, const proto::Envelope& envelope, const Sender& sender);
  void onSubscribe(ClientSession& session, const proto::Envelope& envelope);
  void onUnsubscribe(ClientSession& session, const proto::Envelope& envelope);
  void onHeartbeat(ClientSession& session, const proto::Envelope& envelope);
  void onGoodbye(const std::string& routing_id);
  // Ends the session under `routing_id`, if any, saying why in the log (and
  // in FTB_CLIENT_LOST when `how` is kLost).
  void end(const std::string& routing_id, SessionEnd how, std::string_view why);

  // The housekeeping turn: clients silent past --client-timeout-ms or not
  // reading their replies are lost; idle stream connections without a session
  // are closed; long-departed publishers are forgotten.
  void housekeep();
  // What the namespace policy lets `session` do (at Hello, and for every
  // session after a reload).
  void applyPolicy(ClientSession& session);

 private:
  void expireSilent();
  void forgetDeparted();

  Parts p_;
};

}  // namespace ftb::agent
