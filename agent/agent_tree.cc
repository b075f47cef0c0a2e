// The agent's part in the tree of agents: it drives a tree::TreeNode over
// ZeroMQ, hands it locally published events and local subscription interest,
// delivers what other agents route here, and publishes its own topology
// changes as FTB.AGENT events.
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/config/config_check.h"
#include "agent/security/verified_sender.h"
#include "agent/transport/tree_wire.h"
#include "client/event.h"
#include "client/wire/codec.h"
#include "client/wire/event_codec.h"

namespace ftb::agent {
namespace {

constexpr std::size_t kTreeBacklogFrames = 100000;

tree::Nanos treeNow(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<tree::Nanos>(t.time_since_epoch());
}

// "tcp://0.0.0.0:10809" is where we listen, not where peers find us.
std::string advertisedAddress(const std::string& bound, const std::string& host) {
  for (const std::string wildcard : {"tcp://0.0.0.0:", "tcp://*:", "tcp://[::]:"}) {
    if (bound.rfind(wildcard, 0) == 0) return "tcp://" + host + ":" + bound.substr(wildcard.size());
  }
  return bound;
}

// "tcp://host:port" with another port (IPv6 hosts keep their brackets).
std::string withPort(const std::string& endpoint, const std::string& port) {
  return endpoint.substr(0, endpoint.rfind(':') + 1) + port;
}
std::string portOf(const std::string& endpoint) { return endpoint.substr(endpoint.rfind(':') + 1); }

// With PINGs finding silent deaths, heartbeat silence is left to find an agent
// whose loop is wedged or starved for this long (still adaptive above it): the
// loops of a CPU-starved machine were seen to stall 0.4-3 s, and up to 13 s
// past saturation (bench/results/2026-11-27-tree-bench-history.md), while their PINGs were answered.
constexpr tree::Nanos kPingedSilenceFloor = std::chrono::seconds(5);

// How often the loop reads its thread's CPU clock for the stall warning: the CPU
// figure of a late turn then covers up to this much more than the gap it explains.
constexpr auto kCpuSampleEvery = std::chrono::milliseconds(10);

std::string nodeText(const tree::NodeRef& n) { return n.name + "@" + n.address; }

std::chrono::nanoseconds threadCpu() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

// How the thread answering tree PINGs is scheduled, for the start-up log.
std::string probeScheduling(const ZmqTreeTransport& transport, uint32_t priority) {
  if (transport.realtimeProbes()) return "real-time scheduling, SCHED_RR " + std::to_string(priority);
  if (priority == 0) return "normal scheduling";
  return "normal scheduling: real-time was refused (" + transport.realtimeRefusal() +
         ": needs root, CAP_SYS_NICE or RLIMIT_RTPRIO, no RestrictRealtime=, and a real-time budget in the "
         "cpu cgroup where the kernel has CONFIG_RT_GROUP_SCHED), so a CPU hog can delay the answers";
}

}  // namespace

Status Agent::startTree() {
  std::string bound;
  for (const auto& e : endpoints_) {
    if (e.rfind("tcp://", 0) == 0) bound = e;
  }
  if (bound.empty()) {
    if (!config_.tree_seeds.empty()) {
      return invalidArgument("--tree-seeds needs a TCP endpoint: set --tcp-endpoint");
    }
    return {};  // local-only agent: no tree
  }
  if (!treeEnabled(config_)) {
    spdlog::warn(treeDisabledNotice(config_));
    return {};
  }
  if (config_.curve_key_file.empty()) {
    spdlog::warn("tree-authentication = insecure-none: any process that reaches {} may join this tree as "
                 "an agent, read every event and publish under any name (a lab setting; docs/SECURITY.md)",
                 bound);
  }
  tree::TreeConfig tc;
  tc.fan_out = config_.tree_fan_out;
  tc.heartbeat_interval = std::chrono::milliseconds(config_.tree_heartbeat_ms);
  tc.link_timeout = std::chrono::milliseconds(config_.tree_timeout_ms);
  // Roots look for other trees no more often than with the former defaults (200/800 ms).
  tc.probe_interval = std::max({tc.link_timeout / 2, tc.heartbeat_interval,
                                tree::Nanos(std::chrono::milliseconds(400))});
  tc.seeds = config_.tree_seeds;
  tc.retention_events = config_.tree_retention_events;
  tc.retention_age = std::chrono::seconds(config_.tree_retention_s);
  tc.retention_bytes = config_.tree_retention_bytes;
  tc.reorder_timeout = std::max<tree::Nanos>(4 * tc.link_timeout, std::chrono::seconds(2));
  incarnation_ = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           clock_.systemNow().time_since_epoch())
                                           .count());
  const std::string address = config_.tree_advertise.empty()
                                  ? advertisedAddress(bound, config_.name)
                                  : config_.tree_advertise;
  const LinkPing ping{std::chrono::milliseconds(config_.tree_ping_ms),
                      std::chrono::milliseconds(config_.tree_ping_timeout_ms)};
  tree_transport_ = std::make_unique<ZmqTreeTransport>(
      context_, *poller_, kTreeBacklogFrames, ping,
      curve_ ? std::optional(curve_->keys()) : std::nullopt);
  std::string probe;  // where peers' PINGs go: a listener of its own on our interface, any free port
  if (ping.interval.count() > 0) {
    Result<std::string> listening =
        tree_transport_->listenForProbes(withPort(bound, std::to_string(config_.tree_probe_port)),
                                         static_cast<int>(config_.tree_probe_rt_priority));
    if (!listening.ok()) return listening.status();
    probe = config_.tree_advertise.empty() ? advertisedAddress(*listening, config_.name)
                                           : withPort(config_.tree_advertise, portOf(*listening));
    tc.silence_floor = std::max(tc.link_timeout, kPingedSilenceFloor);
    spdlog::info("tree: answering liveness PINGs at {} (every {} ms, dead after {} ms without an answer; {})",
                 probe, config_.tree_ping_ms, config_.tree_ping_timeout_ms,
                 probeScheduling(*tree_transport_, config_.tree_probe_rt_priority));
  }
  tree_ = std::make_unique<tree::TreeNode>(tree::NodeRef{address, incarnation_, config_.name, probe}, tc,
                                           *tree_transport_, static_cast<tree::TreeHost&>(*this),
                                           incarnation_);
  tree_->start(treeNow(clock_.steadyNow()));
  return {};
}

void Agent::driveTree(std::chrono::steady_clock::time_point now, bool input_backlog) {
  if (!tree_) return;
  // The tree's timers want a turn every quarter heartbeat. A turn that comes a
  // whole heartbeat late says why: the loop was busy (CPU used) or starved
  // (waiting for a core, or blocked). TreeNode::tick allows for it. The thread's
  // CPU clock is a system call: read at most every kCpuSampleEvery, not every turn.
  const auto gap = now - tree_turn_at_;
  const bool late = tree_turn_at_.time_since_epoch().count() > 0 &&
                    gap > std::chrono::milliseconds(config_.tree_heartbeat_ms);
  if (late || now - tree_cpu_at_ >= kCpuSampleEvery) {
    const auto cpu = threadCpu();
    if (late) {
      log_.warn("tree-stall", "tree: the agent's loop came back after {} ms ({} ms of it on a CPU){}",
                std::chrono::duration_cast<std::chrono::milliseconds>(gap).count(),
                std::chrono::duration_cast<std::chrono::milliseconds>(cpu - tree_turn_cpu_).count(),
                input_backlog ? ", input backlogged" : "");
    }
    tree_cpu_at_ = now;
    tree_turn_cpu_ = cpu;
  }
  tree_turn_at_ = now;
  if (tree_interest_dirty_) {
    tree_interest_dirty_ = false;
    tree::Interest interest;
    for (const auto& [id, s] : sessions_) {
      for (const auto& [sub_id, sub] : s->subscriptions) interest.push_back(sub.filter.eventSpaceText());
    }
    tree_->setLocalInterest(std::move(interest), treeNow(now));
  }
  // Closed connections first: a dead peer is dropped before anything is sent to it.
  for (const std::string& address : tree_transport_->takeDisconnected()) {
    tree_->onPeerDisconnected(address, treeNow(now));
  }
  tree_->tick(treeNow(now), input_backlog);
  tree_->flush();
  tree_transport_->flush(now);
  publishTopologyChanges();
}

void Agent::updateTreeInterest() { tree_interest_dirty_ = true; }

void Agent::onTree(const proto::Envelope& envelope) {
  if (!tree_) return;
  Result<tree::TreeMessage> message = fromProto(envelope.tree());
  if (!message.ok()) {
    counters_.set_bad_frames(counters_.bad_frames() + 1);
    log_.warn("bad-tree", "bad tree message: {}", message.status().message());
    return;
  }
  tree_transport_->learnProbe(message->from.address, message->from.probe);
  tree_->onMessage(*message, treeNow(clock_.steadyNow()));
}

void Agent::sendToTree(const RoutedEventPtr& routed, const std::string& publisher_key) {
  if (!tree_) return;
  // Filled in place: its strings keep their buffers from one event to the
  // next. The bytes only: the parsed event is not kept.
  tree::TreeEvent& event = tree_outgoing_;
  event.publisher = publisher_key;
  event.seq = routed->event.id().seq();
  event.event_space = routed->event.event_space();
  event.flood = routed->event.type() == proto::RESPONSE;
  event.bytes = routed->bytes;
  tree_->publishLocal(event, treeNow(routed->arrived));
  event.bytes.reset();  // held by the relay log, if it keeps the event
}

void Agent::deliverLocal(const tree::TreeEvent& event) {
  if (!event.bytes) return;
  auto routed = std::make_shared<RoutedEvent>();
  if (!wire::parseEventFromPeer(routed->event, *event.bytes)) {
    counters_.set_bad_frames(counters_.bad_frames() + 1);
    log_.warn("bad-tree-event", "an event from another agent does not parse");
    return;
  }
  routed->bytes = event.bytes;  // shared with the RelayLog, not copied
  routed->arrived = clock_.steadyNow();
  metrics_.events(routed->event.event_space(), routed->event.severity()).received_tree->Increment();
  history_.add(routed);
  route(routed);
}

void Agent::topologyChanged(const tree::TopologyChange& change) {
  topology_changes_.push_back(change);
}

void Agent::eventsLost(const std::string& event_space, uint64_t count, tree::LossCause cause) {
  const bool not_filled = cause == tree::LossCause::kNotFilledInTime;
  log_.warn("tree-lost", "{} events of {} from other agents never arrived after a repair: {}", count,
            event_space,
            not_filled ? "their gap was not filled within the reorder hold"
                     : "no agent on their way retains them any more (tree-retention-*)");
  // Every local subscription that could have matched them hears of the loss
  // as missed events (its filter's event space; name and severity are unknown).
  for (auto& [routing_id, session] : sessions_) {
    if (!mayReceive(*session, event_space)) continue;
    bool told = false;
    for (const auto& [id, sub] : session->subscriptions) {
      if (!sub.filter.matchesEventSpace(event_space)) continue;
      session->outbound.addMissedFor(id, count);
      told = true;
    }
    if (told) session->outbound.addMissed(count);
  }
  publishAgentEvent("FTB_AGENT_EVENTS_LOST", proto::ERROR,
                    "agent=" + config_.name + " space=" + event_space + " lost=" + std::to_string(count) +
                        " cause=" + (not_filled ? "not-filled" : "not-retained"),
                    {{"space", event_space}, {"lost", std::to_string(count)},
                     {"cause", not_filled ? "not-filled" : "not-retained"}});
}

void Agent::publishTopologyChanges() {
  std::vector<tree::TopologyChange> changes;
  changes.swap(topology_changes_);
  using K = tree::TopologyChange::Kind;
  for (const auto& c : changes) {
    std::string name;
    proto::Severity severity = proto::INFO;
    switch (c.kind) {
      case K::kJoined: name = "FTB_AGENT_JOINED"; break;
      case K::kParentLost: name = "FTB_AGENT_PARENT_LOST", severity = proto::WARNING; break;
      case K::kReattached: name = "FTB_AGENT_REATTACHED"; break;
      case K::kBecameRoot: name = "FTB_AGENT_ROOT_TAKEOVER"; break;
      case K::kChildAttached: name = "FTB_AGENT_CHILD_ATTACHED"; break;
      case K::kChildLost: name = "FTB_AGENT_CHILD_LOST", severity = proto::WARNING; break;
      case K::kMerged: name = "FTB_AGENT_TREES_MERGED"; break;
      case K::kCycleBroken: name = "FTB_AGENT_CYCLE_BROKEN", severity = proto::WARNING; break;
    }
    std::string payload = "agent=" + config_.name + " address=" + tree_->self().address +
                          " peer=" + nodeText(c.subject);
    if (c.repair_time > tree::Nanos(0)) {
      metrics_.tree_repair_seconds.Observe(std::chrono::duration<double>(c.repair_time).count());
      payload += " repair_ms=" + std::to_string(
                                     std::chrono::duration<double, std::milli>(c.repair_time).count());
    }
    if (!c.detail.empty()) payload += " detail=\"" + c.detail + "\"";
    spdlog::log(severity == proto::WARNING ? spdlog::level::warn : spdlog::level::info,
                "tree: {} {}", name, payload);
    publishAgentEvent(name, severity, std::move(payload));
  }
}

void Agent::publishAgentEvent(const std::string& name, proto::Severity severity,
                              std::string payload,
                              const std::unordered_map<std::string, std::string>& tags) {
  auto routed = std::make_shared<RoutedEvent>();
  proto::Event& e = routed->event;
  e.set_event_space(kAgentEventSpace);
  e.set_event_name(name);
  e.set_severity(severity);
  e.set_client_name("ftb-agent");
  e.set_type(proto::NORMAL);
  auto* origin = e.mutable_id()->mutable_origin();
  origin->set_host(config_.name);
  origin->set_pid(static_cast<uint32_t>(getpid()));
  origin->set_process_start_ns(incarnation_);
  e.mutable_id()->set_seq(++agent_event_seq_);
  const auto wall = clock_.systemNow().time_since_epoch();
  e.set_time_sec(std::chrono::duration_cast<std::chrono::seconds>(wall).count());
  e.set_time_nsec(static_cast<int32_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count() % 1000000000));
  e.set_payload(std::move(payload));
  for (const auto& [key, value] : tags) (*e.mutable_tags())[key] = value;
  stampSender(*e.mutable_sender(), config_.name,
              {.peer = PeerCredentials{.uid = geteuid(), .gid = getegid(), .pid = static_cast<uint32_t>(getpid())}});
  routed->bytes = std::make_shared<const std::string>(e.SerializeAsString());
  routed->arrived = clock_.steadyNow();
  counters_.set_events_in(counters_.events_in() + 1);
  metrics_.events(e.event_space(), e.severity()).received_local->Increment();
  history_.add(routed);
  route(routed);
  sendToTree(routed, ftb::fromProto(e.id()).publisherKey());
}

void Agent::fillTreeInfo(proto::TreeInfo* info) {
  info->set_uptime_ms(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                clock_.steadyNow() - started_)
                                                .count()));
  info->set_clients(static_cast<uint32_t>(sessions_.size()));
  if (!tree_) {
    // "off": a TCP endpoint but no cluster key (ftbctl tree says so and what to do).
    info->set_state(treeDisabledNotice(config_).empty() ? "disabled" : "off");
    return;
  }
  const tree::Nanos now = treeNow(clock_.steadyNow());
  toProto(tree_->self(), info->mutable_self());
  switch (tree_->state()) {
    case tree::TreeNode::State::kJoining: info->set_state("joining"); break;
    case tree::TreeNode::State::kAttached: info->set_state("attached"); break;
    case tree::TreeNode::State::kRoot: info->set_state("root"); break;
  }
  for (const auto& n : tree_->path()) toProto(n, info->add_path());
  for (const auto& l : tree_->links(now)) {
    auto* link = info->add_links();
    toProto(l.node, link->mutable_node());
    link->set_is_parent(l.is_parent);
    link->set_rtt_us(l.rtt.count() < 0 ? -1 : l.rtt.count() / 1000);
    link->set_silent_for_ms(l.silent_for.count() / 1000000);
    link->set_subtree_size(l.subtree_size);
  }
  const auto stats = tree_->stats();
  info->set_repairs(stats.repairs);
  info->set_last_repair_ms(stats.last_repair_time.count() / 1000000);
  info->set_events_forwarded(stats.events_forwarded);
  info->set_events_replayed(stats.events_replayed);
  info->set_duplicates_suppressed(stats.duplicates_suppressed);
  info->set_events_lost(stats.events_lost);
}

}  // namespace ftb::agent
