#include "agent/tree_bridge/tree_bridge.h"

#include <time.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/config/config_check.h"
#include "agent/transport/tree_wire.h"
#include "agent/tree_bridge/node_lost_event.h"
#include "client/wire/codec.h"

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

Result<std::unique_ptr<TreeBridge>> TreeBridge::start(Parts parts, PublishAgentEvent publish, Links links) {
  const AgentConfig& config = parts.config;
  std::string bound;
  for (const auto& e : links.endpoints) {
    if (e.rfind("tcp://", 0) == 0) bound = e;
  }
  if (bound.empty()) {
    if (!config.tree_seeds.empty()) {
      return invalidArgument("--tree-seeds needs a TCP endpoint: set --tcp-endpoint");
    }
    return std::unique_ptr<TreeBridge>();  // local-only agent: no tree
  }
  if (!treeEnabled(config)) {
    spdlog::warn(treeDisabledNotice(config));
    return std::unique_ptr<TreeBridge>();
  }
  if (config.curve_key_file.empty()) {
    spdlog::warn("tree-authentication = insecure-none: any process that reaches {} may join this tree as "
                 "an agent, read every event and publish under any name (a lab setting; docs/SECURITY.md)",
                 bound);
  }
  tree::TreeConfig tc;
  tc.fan_out = config.tree_fan_out;
  tc.heartbeat_interval = std::chrono::milliseconds(config.tree_heartbeat_ms);
  tc.link_timeout = std::chrono::milliseconds(config.tree_timeout_ms);
  // Roots look for other trees no more often than with the former defaults (200/800 ms).
  tc.probe_interval = std::max({tc.link_timeout / 2, tc.heartbeat_interval,
                                tree::Nanos(std::chrono::milliseconds(400))});
  tc.seeds = config.tree_seeds;
  tc.retention_events = config.tree_retention_events;
  tc.retention_age = std::chrono::seconds(config.tree_retention_s);
  tc.retention_bytes = config.tree_retention_bytes;
  tc.reorder_timeout = std::max<tree::Nanos>(4 * tc.link_timeout, std::chrono::seconds(2));
  const std::string address = config.tree_advertise.empty()
                                  ? advertisedAddress(bound, config.name)
                                  : config.tree_advertise;
  const LinkPing ping{std::chrono::milliseconds(config.tree_ping_ms),
                      std::chrono::milliseconds(config.tree_ping_timeout_ms)};
  std::unique_ptr<TreeBridge> bridge(new TreeBridge(parts, std::move(publish)));
  bridge->transport_ = std::make_unique<ZmqTreeTransport>(
      links.context, links.poller, kTreeBacklogFrames, ping,
      links.curve != nullptr ? std::optional(links.curve->keys()) : std::nullopt);
  std::string probe;  // where peers' PINGs go: a listener of its own on our interface, any free port
  if (ping.interval.count() > 0) {
    Result<std::string> listening =
        bridge->transport_->listenForProbes(withPort(bound, std::to_string(config.tree_probe_port)),
                                            static_cast<int>(config.tree_probe_rt_priority));
    if (!listening.ok()) return listening.status();
    probe = config.tree_advertise.empty() ? advertisedAddress(*listening, config.name)
                                          : withPort(config.tree_advertise, portOf(*listening));
    tc.silence_floor = std::max(tc.link_timeout, kPingedSilenceFloor);
    spdlog::info("tree: answering liveness PINGs at {} (every {} ms, dead after {} ms without an answer; {})",
                 probe, config.tree_ping_ms, config.tree_ping_timeout_ms,
                 probeScheduling(*bridge->transport_, config.tree_probe_rt_priority));
  }
  bridge->node_ = std::make_unique<tree::TreeNode>(
      tree::NodeRef{address, links.incarnation, config.name, probe}, tc, *bridge->transport_,
      static_cast<tree::TreeHost&>(*bridge), links.incarnation);
  bridge->node_->start(treeNow(parts.clock.steadyNow()));
  return bridge;
}

std::chrono::milliseconds TreeBridge::maxWait(std::chrono::milliseconds wait) const {
  // The tree's timers want a turn every quarter heartbeat; a backlog to its links, at once.
  const std::chrono::milliseconds most(
      transport_->backlogged() ? 1 : std::max(1u, p_.config.tree_heartbeat_ms / 4));
  return std::min(wait, most);
}

void TreeBridge::warnIfStalled(std::chrono::steady_clock::time_point now, bool input_backlog) {
  // A turn that comes a whole heartbeat late says why: the loop was busy (CPU
  // used) or starved (waiting for a core, or blocked). TreeNode::tick allows
  // for it. The thread's CPU clock is a system call: read at most every
  // kCpuSampleEvery, not every turn.
  const auto gap = now - turn_at_;
  const bool late = turn_at_.time_since_epoch().count() > 0 &&
                    gap > std::chrono::milliseconds(p_.config.tree_heartbeat_ms);
  if (late || now - cpu_at_ >= kCpuSampleEvery) {
    const auto cpu = threadCpu();
    if (late) {
      p_.log.warn("tree-stall", "tree: the agent's loop came back after {} ms ({} ms of it on a CPU){}",
                  std::chrono::duration_cast<std::chrono::milliseconds>(gap).count(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(cpu - turn_cpu_).count(),
                  input_backlog ? ", input backlogged" : "");
    }
    cpu_at_ = now;
    turn_cpu_ = cpu;
  }
  turn_at_ = now;
}

void TreeBridge::drive(std::chrono::steady_clock::time_point now, bool input_backlog) {
  warnIfStalled(now, input_backlog);
  if (interest_dirty_) {
    interest_dirty_ = false;
    tree::Interest interest;
    for (const auto& [id, s] : p_.sessions) {
      for (const auto& [sub_id, sub] : s->subscriptions) interest.push_back(sub.filter.eventSpaceText());
    }
    node_->setLocalInterest(std::move(interest), treeNow(now));
  }
  // Closed connections first: a dead peer is dropped before anything is sent to it.
  for (const std::string& address : transport_->takeDisconnected()) {
    node_->onPeerDisconnected(address, treeNow(now));
  }
  node_->tick(treeNow(now), input_backlog);
  node_->flush();
  transport_->flush(now);
  publishTopologyChanges();
}

void TreeBridge::onMessage(const proto::Envelope& envelope) {
  Result<tree::TreeMessage> message = fromProto(envelope.tree());
  if (!message.ok()) {
    p_.counters.set_bad_frames(p_.counters.bad_frames() + 1);
    p_.log.warn("bad-tree", "bad tree message: {}", message.status().message());
    return;
  }
  transport_->learnProbe(message->from.address, message->from.probe);
  node_->onMessage(*message, treeNow(p_.clock.steadyNow()));
}

void TreeBridge::publishLocal(const RoutedEventPtr& routed, const std::string& publisher_key) {
  // Filled in place: its strings keep their buffers from one event to the
  // next. The bytes only: the parsed event is not kept.
  tree::TreeEvent& event = outgoing_;
  event.publisher = publisher_key;
  event.seq = routed->event.id().seq();
  event.event_space = routed->event.event_space();
  event.flood = routed->event.type() == proto::RESPONSE;
  event.bytes = routed->bytes;
  node_->publishLocal(event, treeNow(routed->arrived));
  event.bytes.reset();  // held by the relay log, if it keeps the event
}

void TreeBridge::flush(std::chrono::steady_clock::time_point now) {
  node_->flush();  // event batches built this turn
  transport_->flush(now);
}

void TreeBridge::leave(std::string_view why) {
  node_->leave(std::string(why));
  transport_->flush(p_.clock.steadyNow());
}

void TreeBridge::deliverLocal(const tree::TreeEvent& event) {
  if (!event.bytes) return;
  auto routed = std::make_shared<RoutedEvent>();
  if (!wire::parseEventFromPeer(routed->event, *event.bytes)) {
    p_.counters.set_bad_frames(p_.counters.bad_frames() + 1);
    p_.log.warn("bad-tree-event", "an event from another agent does not parse");
    return;
  }
  routed->bytes = event.bytes;  // shared with the RelayLog, not copied
  routed->arrived = p_.clock.steadyNow();
  p_.metrics.events(routed->event.event_space(), routed->event.severity()).received_tree->Increment();
  p_.history.add(routed);
  p_.router.route(routed);
}

void TreeBridge::topologyChanged(const tree::TopologyChange& change) {
  topology_changes_.push_back(change);
}

void TreeBridge::eventsLost(const std::string& event_space, uint64_t count, tree::LossCause cause) {
  const bool not_filled = cause == tree::LossCause::kNotFilledInTime;
  p_.log.warn("tree-lost", "{} events of {} from other agents never arrived after a repair: {}", count,
            event_space,
            not_filled ? "their gap was not filled within the reorder hold"
                     : "no agent on their way retains them any more (tree-retention-*)");
  // Every local subscription that could have matched them hears of the loss
  // as missed events (its filter's event space; name and severity are unknown).
  for (const auto& [routing_id, session] : p_.sessions) {
    if (!p_.router.mayReceive(*session, event_space)) continue;
    bool told = false;
    for (const auto& [id, sub] : session->subscriptions) {
      if (!sub.filter.matchesEventSpace(event_space)) continue;
      session->outbound.addMissedFor(id, count);
      told = true;
    }
    if (told) session->outbound.addMissed(count);
  }
  publish_("FTB_AGENT_EVENTS_LOST", proto::ERROR,
                    "agent=" + p_.config.name + " space=" + event_space + " lost=" + std::to_string(count) +
                        " cause=" + (not_filled ? "not-filled" : "not-retained"),
                    {{"space", event_space}, {"lost", std::to_string(count)},
                     {"cause", not_filled ? "not-filled" : "not-retained"}});
}

tree::Residents TreeBridge::localResidents() const {
  tree::Residents out{.clients = static_cast<uint32_t>(p_.sessions.size())};
  for (const auto& [routing_id, session] : p_.sessions) {
    if (session->job_id.empty()) continue;
    auto& ranks = out.ranks_by_job[session->job_id];
    if (session->rank) ranks.push_back(*session->rank);
  }
  for (auto& [job, ranks] : out.ranks_by_job) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  }
  return out;
}

void TreeBridge::publishTopologyChanges() {
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
    std::string payload = "agent=" + p_.config.name + " address=" + node_->self().address +
                          " peer=" + nodeText(c.subject);
    if (c.repair_time > tree::Nanos(0)) {
      p_.metrics.tree_repair_seconds.Observe(std::chrono::duration<double>(c.repair_time).count());
      payload += " repair_ms=" + std::to_string(
                                     std::chrono::duration<double, std::milli>(c.repair_time).count());
    }
    if (!c.detail.empty()) payload += " detail=\"" + c.detail + "\"";
    spdlog::log(severity == proto::WARNING ? spdlog::level::warn : spdlog::level::info,
                "tree: {} {}", name, payload);
    publish_(name, severity, std::move(payload), {});
    if (c.loss && c.loss->announce) {
      AgentEventText lost = nodeLostEvent(c, p_.config.name);
      spdlog::error("tree: {} {}", lost.name, lost.payload);
      publish_(lost.name, lost.severity, std::move(lost.payload), lost.tags);
    }
  }
}

void TreeBridge::fillInfo(proto::TreeInfo* info) const {
  const tree::Nanos now = treeNow(p_.clock.steadyNow());
  toProto(node_->self(), info->mutable_self());
  switch (node_->state()) {
    case tree::TreeNode::State::kJoining: info->set_state("joining"); break;
    case tree::TreeNode::State::kAttached: info->set_state("attached"); break;
    case tree::TreeNode::State::kRoot: info->set_state("root"); break;
  }
  for (const auto& n : node_->path()) toProto(n, info->add_path());
  for (const auto& l : node_->links(now)) {
    auto* link = info->add_links();
    toProto(l.node, link->mutable_node());
    link->set_is_parent(l.is_parent);
    link->set_rtt_us(l.rtt.count() < 0 ? -1 : l.rtt.count() / 1000);
    link->set_silent_for_ms(l.silent_for.count() / 1000000);
    link->set_subtree_size(l.subtree_size);
    link->set_clients(l.residents.clients);
    link->set_job_ranks(jobRanksText(l.residents));
  }
  const auto stats = node_->stats();
  info->set_repairs(stats.repairs);
  info->set_last_repair_ms(stats.last_repair_time.count() / 1000000);
  info->set_events_forwarded(stats.events_forwarded);
  info->set_events_replayed(stats.events_replayed);
  info->set_duplicates_suppressed(stats.duplicates_suppressed);
  info->set_events_lost(stats.events_lost);
}

void TreeBridge::updateMetrics() const {
  AgentMetrics& m = p_.metrics;
  m.tree_state_attached.Set(node_->state() == tree::TreeNode::State::kAttached ? 1 : 0);
  m.tree_state_root.Set(node_->state() == tree::TreeNode::State::kRoot ? 1 : 0);
  m.tree_links.Set(static_cast<double>(node_->links(treeNow(p_.clock.steadyNow())).size()));
  m.tree_backlog.Set(transport_->backlogged() ? 1 : 0);
  m.tree_retained_events.Set(static_cast<double>(node_->retained()));
  m.tree_retained_bytes.Set(static_cast<double>(node_->retainedBytes()));
  const auto stats = node_->stats();
  AgentMetrics::sync(m.tree_repairs, stats.repairs);
  AgentMetrics::sync(m.tree_events_forwarded, stats.events_forwarded);
  AgentMetrics::sync(m.tree_events_replayed, stats.events_replayed);
  AgentMetrics::sync(m.tree_duplicates, stats.duplicates_suppressed);
  AgentMetrics::sync(m.tree_events_lost, stats.events_lost);
  AgentMetrics::sync(m.tree_frames_dropped, transport_->framesDropped());
}

}  // namespace ftb::agent
