// TreeBridge: the agent's part in the tree of agents. It drives a
// tree::TreeNode over ZeroMQ links (ZmqTreeTransport), hands it the events
// published here and the local subscriptions' interest, delivers to local
// subscribers what other agents route here, tells subscribers of events lost
// on the way, and publishes this agent's topology changes as FTB.AGENT events.
//
//   auto bridge = TreeBridge::start(parts, publish, {context, poller, endpoints, curve, incarnation});
//   if (*bridge) loop: bridge->drive(now, backlog); bridge->onMessage(envelope); ...
//
// Threading: the agent's event loop only (the transport's PING listener runs
// on a thread of its own).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/config/config.h"
#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/event_history.h"
#include "agent/routing/router.h"
#include "agent/security/curve_endpoint.h"
#include "agent/sessions/session_table.h"
#include "agent/transport/tree_link.h"
#include "agent/tree/tree_node.h"
#include "client/clock.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

class TreeBridge final : private tree::TreeHost {
 public:
  // The agent's state the bridge reads and feeds.
  struct Parts {
    const AgentConfig& config;
    const SessionTable& sessions;  // their subscriptions are the interest; told of losses
    Router& router;                // delivers what other agents send
    EventHistory& history;
    AgentMetrics& metrics;
    proto::Counters& counters;
    RateLimitedLog& log;
    const Clock& clock;
  };
  // Where the bridge's own events go: the agent's FTB.AGENT publishing.
  using Tags = std::unordered_map<std::string, std::string>;
  using PublishAgentEvent =
      std::function<void(const std::string& name, proto::Severity severity, std::string payload, const Tags& tags)>;
  struct Links {
    ZmqContext& context;
    Poller& poller;
    const std::vector<std::string>& endpoints;  // the agent's bound endpoints: the tree uses its TCP one
    const CurveEndpoint* curve;                 // null: links are not encrypted
    uint64_t incarnation;                       // names this run of the agent to its peers
  };

  // Joins the tree; null when the agent has no TCP endpoint or no cluster key
  // (said in the log). Errors: a listener that cannot bind, seeds without TCP.
  static Result<std::unique_ptr<TreeBridge>> start(Parts parts, PublishAgentEvent publish, Links links);

  // The loop's turn: how long it may sleep at most, whether input waits.
  std::chrono::milliseconds maxWait(std::chrono::milliseconds wait) const;
  bool hasInput() const { return transport_->hasInput(); }
  // Timers, interest, dropped peers, then what is ready to go out.
  // `input_backlog`: this turn left messages unread (see TreeNode::tick).
  void drive(std::chrono::steady_clock::time_point now, bool input_backlog);
  // A tree message from a peer agent (an Envelope's tree body).
  void onMessage(const proto::Envelope& envelope);
  // An event accepted here (or the agent's own), for the other agents.
  void publishLocal(const RoutedEventPtr& routed, const std::string& publisher_key);
  // A local subscription came or went: the interest is recomputed next turn.
  void interestChanged() { interest_dirty_ = true; }
  void setSeeds(const std::vector<std::string>& seeds) { node_->setSeeds(seeds); }

  // Shutdown: what waits for links, handed over as they make room; then the
  // children and parent are told, so that they repair at once.
  bool backlogged() const { return transport_->backlogged(); }
  void flush(std::chrono::steady_clock::time_point now);
  void leave(std::string_view why);

  // ftbctl tree, and the tree's metrics.
  void fillInfo(proto::TreeInfo* info) const;
  void updateMetrics() const;

 private:
  TreeBridge(Parts parts, PublishAgentEvent publish) : p_(parts), publish_(std::move(publish)) {}

  void deliverLocal(const tree::TreeEvent& event) override;
  void topologyChanged(const tree::TopologyChange& change) override;
  void eventsLost(const std::string& event_space, uint64_t count, tree::LossCause cause) override;
  tree::Residents localResidents() const override;
  void publishTopologyChanges();
  void warnIfStalled(std::chrono::steady_clock::time_point now, bool input_backlog);

  Parts p_;
  PublishAgentEvent publish_;
  std::unique_ptr<ZmqTreeTransport> transport_;
  std::unique_ptr<tree::TreeNode> node_;
  tree::TreeEvent outgoing_;  // publishLocal()'s, reused
  bool interest_dirty_ = false;
  // The previous turn, and this thread's CPU clock as last sampled (at
  // cpu_at_): a long gap is logged with the CPU the loop used in it (busy) or
  // not (starved).
  std::chrono::steady_clock::time_point turn_at_{};
  std::chrono::nanoseconds turn_cpu_{0};
  std::chrono::steady_clock::time_point cpu_at_{};
  std::vector<tree::TopologyChange> topology_changes_;  // published after the tree call returns
};

}  // namespace ftb::agent
