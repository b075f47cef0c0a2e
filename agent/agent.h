// The ftb-agent: one per node. Local clients reach it over its own Unix
// stream socket (or ZeroMQ IPC where enabled), remote clients and tree peers
// over TCP on a ZeroMQ ROUTER socket. It delivers every published event once
// per matching subscription, in publish order per publisher, and answers the
// control API used by ftbctl. Agent is the hub: its loop owns the sockets,
// reads each frame, asks Admission (security/) and hands it to the part whose
// job it is; the parts own their state and share one Clock
// (docs/ARCHITECTURE.md): ClientService (clients/: Hello, subscriptions,
// Goodbye, a session's end), EventIntake (intake/: publishes and the agent's
// own events), Router and Replies (routing/: matching, delivery batching,
// answers, through a ClientFrameSink of transport/), Departures (liveness/),
// TreeBridge (tree_bridge/: the tree of agents), ControlService (control/:
// ftbctl's queries) and CurveEndpoint (security/).
//
// Threading: create() on any thread; run() is the event loop and owns all state;
// requestStop() may be called from any thread or a signal handler.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <google/protobuf/arena.h>

#include "agent/clients/client_service.h"
#include "agent/config/config.h"
#include "agent/config/reload_request.h"
#include "agent/control/control_service.h"
#include "agent/intake/event_intake.h"
#include "agent/liveness/departures.h"
#include "agent/loop/poller.h"
#include "agent/loop/rate_limited_log.h"
#include "agent/metrics/agent_metrics.h"
#include "agent/routing/event_history.h"
#include "agent/routing/replies.h"
#include "agent/routing/router.h"
#include "agent/routing/subscription_index.h"
#include "agent/security/admission.h"
#include "agent/security/curve_endpoint.h"
#include "agent/security/namespace_policy.h"
#include "agent/sessions/client_session.h"
#include "agent/sessions/session_table.h"
#include "agent/transport/client_frame_sink.h"
#include "agent/transport/local_stream_server.h"
#include "agent/transport/tcp_connection_limit.h"
#include "agent/transport/zmq_frame_sink.h"
#include "agent/transport/zmq_frame_source.h"
#include "agent/tree_bridge/tree_bridge.h"
#include "client/clock.h"
#include "client/status.h"
#include "client/transport/zmq_socket.h"
#include "client/wire/publish_reader.h"
#include "daemon/service_notifier.h"
#include "metrics/http_server.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// How long a stopping agent keeps handing queued events to slow subscribers
// and tree links (below the unit's TimeoutStopSec).
inline constexpr std::chrono::milliseconds kShutdownDrain{5000};

class Agent {
 public:
  // Binds the endpoints. Startup errors (endpoint in use, bad endpoint) come
  // back as a Status whose message says what to fix.
  static Result<std::unique_ptr<Agent>> create(AgentConfig config);

  // Serves until requestStop(). Returns after saying nothing more: clients see
  // the agent vanish and reconnect to its successor.
  void run();
  void requestStop() { stop_.store(true); }
  // Re-reads the configuration on the loop's next turn (signal-safe); see
  // agent_lifecycle.cc for what changes at run time. The reloader returns the
  // configuration as it is now (main.cc: the command line and --config file).
  // `answer_to`: a process that asked for an answer (reload_request.h), told
  // whether the reload applied; 0 for none.
  void requestReload(pid_t answer_to = 0) { reload_requests_.request(answer_to); }
  void setConfigReloader(std::function<Result<AgentConfig>()> reloader) {
    reloader_ = std::move(reloader);
  }

  // Endpoints actually bound (port 0 resolved), e.g. "tcp://127.0.0.1:40123".
  const std::vector<std::string>& endpoints() const { return endpoints_; }

 private:
  Agent(AgentConfig config, std::unique_ptr<Poller> poller);
  Status bind();

  // agent_lifecycle.cc: SIGHUP and SIGTERM.
  // The answer for `ftb-agent --reload`: kReloadApplied, kReloadAppliedRestartPending,
  // or kReloadRefused (the current configuration stays).
  int reload();
  void drainOnShutdown();

  // agent.cc: the loop, sessions and sending.
  void handleFrame(const InboundFrame& frame);
  // Consults admission_ first: a message the table refuses never reaches a handler.
  void dispatch(const std::string& routing_id, proto::Envelope& envelope, const Sender& sender);
  // admission_'s verdict; a refusal is counted, logged and answered here.
  bool admitted(const std::string& routing_id, proto::Envelope::BodyCase body_case,
                const Sender& sender, uint64_t request_id);
  // Reads up to `budget` frames from one transport; false when it ran out of
  // budget with frames left (input backlog).
  template <typename Source>
  bool drainClients(Source& source, int budget);
  void updateMetrics();  // gauges and mirrored counters, every housekeeping turn

  AgentConfig config_;
  // What the loop waits on (created first, so that it outlives every
  // registration: the socket's, the stream server's, the tree links', the sessions' pidfds).
  std::unique_ptr<Poller> poller_;
  ZmqContext context_;
  ZmqSocket socket_;  // the ROUTER clients and tree peers send to (ipc://, tcp://)
  Poller::Registration socket_watch_;  // socket_'s descriptor: declared after it, dropped before it closes
  TcpConnectionLimit tcp_limit_;  // the bound on socket_'s TCP connections (libzmq accepts them)
  Poller::Registration tcp_limit_watch_;  // its monitor's descriptor
  std::vector<std::string> endpoints_;
  std::atomic<bool> stop_{false};
  ReloadRequests reload_requests_;  // filled by a signal handler, taken by the loop
  std::function<Result<AgentConfig>()> reloader_;
  NamespacePolicy policy_;
  Admission admission_{policy_};  // how agents prove it: Curve's key, or admitAnyTreePeer() (Agent::create)
  std::unique_ptr<CurveEndpoint> curve_;  // null unless --curve-key-file
  const Clock& clock_ = Clock::real();
  std::chrono::steady_clock::time_point started_;

  // Connected clients, and accepted sequences and owners per publisher key.
  SessionTable sessions_{clock_};
  // Every session's subscriptions, owner = ClientSession*: kept in step with
  // ClientSession::subscriptions by ClientService.
  SubscriptionIndex subscription_index_;

  EventHistory history_;

  // Start time, ns since the epoch: names this run to peers and in its own events' origin.
  uint64_t incarnation_;
  RateLimitedLog log_;
  proto::Counters counters_;
  AgentMetrics metrics_{config_.metrics_max_namespaces};
  std::unique_ptr<metrics::HttpServer> metrics_server_;  // null unless --metrics-listen
  daemon::ServiceNotifier notifier_;  // systemd readiness, watchdog, status
  // Reads clients' frames from socket_ (inbound_: the frame being handled).
  ZmqFrameSource client_source_{socket_};
  InboundFrame inbound_;
  // The frame being handled is decoded here (handleFrame): reset per frame,
  // its first block reused.
  std::array<char, 16384> frame_arena_block_{};
  google::protobuf::Arena frame_arena_{frame_arena_block_.data(), frame_arena_block_.size()};
  // The events of the Publish frame being handled (views into the frame).
  wire::PublishFrame published_;
  // Sends to clients on socket_; a peer ZeroMQ no longer knows is a departure.
  ZmqFrameSink client_sink_{socket_, log_,
                            [this](const std::string& routing_id) { departures_.socketGone(routing_id); }};
  // The local stream socket (--local-endpoint); null when disabled.
  std::unique_ptr<LocalStreamServer> local_;
  // Sends to a client over the transport its routing id belongs to.
  ClientFrameSink client_frames_{client_sink_, local_};
  // Answers to clients' requests, in order behind their deliveries.
  Replies replies_{sessions_, client_frames_, config_, log_};
  // Clients gone without a Goodbye (liveness/): uses the state above; declared after it.
  Departures departures_{{*poller_, sessions_, client_frames_, clock_, config_, log_},
                         [this](const std::string& routing_id, std::string_view why) {
                           clients_.end(routing_id, SessionEnd::kLost, why);
                         }};
  // Matching and delivery batching (router.h): uses the state above; declared after it.
  Router router_{{sessions_, subscription_index_, history_, admission_, metrics_, counters_, log_,
                  client_frames_, clock_}};
  // This agent's place in the tree of agents; null without one (no TCP endpoint, no cluster key).
  std::unique_ptr<TreeBridge> tree_;
  // Events entering the backplane here: clients' publishes and the agent's own.
  EventIntake intake_{{config_, sessions_, router_, tree_, policy_, metrics_, counters_, log_, replies_,
                       client_frames_, clock_},
                      incarnation_};
  // Clients' sessions and subscriptions: uses the state above; declared after it.
  ClientService clients_{{config_, sessions_, subscription_index_, router_, history_, admission_, policy_,
                          replies_, intake_, departures_, tree_, local_, metrics_, counters_, log_, clock_}};
  // The control API (ftbctl): reads the state above; declared after it.
  ControlService control_{
      {config_, sessions_, history_, admission_, policy_, counters_, endpoints_, clock_, started_},
      {.add_auth = [this](proto::StatusReply& r) {
         if (curve_) curve_->addStatus(r);
       },
       .fill_tree = [this](proto::TreeInfo* info) {
         if (tree_) tree_->fillInfo(info);
         return tree_ != nullptr;
       }}};
};

}  // namespace ftb::agent
