#include "agent/agent_metrics.h"

namespace ftb::agent {
namespace {

const std::vector<std::string> kEventLabels{"namespace", "severity"};

// 100 us .. ~15 s: local deliveries take tens of microseconds, deliveries
// across a tree under repair take about a second.
std::vector<double> latencyBuckets() { return metrics::exponentialBuckets(0.0001, 2.5, 14); }

}  // namespace

AgentMetrics::AgentMetrics(std::size_t max_namespaces)
    : clients(registry_.gauge("ftb_agent_clients", "Connected clients (SDK and ftbctl sessions)")),
      subscriptions(registry_.gauge("ftb_agent_subscriptions", "Subscriptions held by connected clients")),
      queued_events(registry_.gauge("ftb_agent_client_queue_events",
                                    "Events queued in the agent for clients whose sockets are full, all clients")),
      max_queued_events(registry_.gauge("ftb_agent_client_queue_max_events",
                                        "Events queued for the most backed-up client")),
      history_events(registry_.gauge("ftb_agent_history_events", "Events kept for replay")),
      clients_connected(registry_.counter("ftb_agent_clients_connected_total", "Client sessions opened")),
      clients_expired(registry_.counter("ftb_agent_clients_expired_total",
                                        "Clients dropped after --client-timeout-ms of silence")),
      bad_frames(registry_.counter("ftb_agent_bad_frames_total", "Frames that did not decode or were unexpected")),
      events_rejected(registry_.counter("ftb_agent_events_rejected_total",
                                        "Published events refused for any reason (bad, undeclared, policy)")),
      tree_state_attached(registry_.gauge("ftb_agent_tree_attached", "1 when attached to a parent agent")),
      tree_state_root(registry_.gauge("ftb_agent_tree_root", "1 when this agent is the root of its tree")),
      tree_links(registry_.gauge("ftb_agent_tree_links", "Live tree links (parent and children)")),
      tree_backlog(registry_.gauge("ftb_agent_tree_backlog", "1 while some tree peer has frames waiting")),
      tree_repairs(registry_.counter("ftb_agent_tree_repairs_total", "Repairs after the parent was lost")),
      tree_repair_seconds(registry_.histogram("ftb_agent_tree_repair_seconds",
                                              "Time from losing the parent to being attached again",
                                              metrics::exponentialBuckets(0.05, 2, 10))),
      tree_events_forwarded(registry_.counter("ftb_agent_tree_events_forwarded_total",
                                              "Events sent to other agents")),
      tree_events_replayed(registry_.counter("ftb_agent_tree_events_replayed_total",
                                             "Events replayed to other agents after repairs")),
      tree_duplicates(registry_.counter("ftb_agent_tree_duplicates_total",
                                        "Duplicate events from other agents dropped")),
      tree_events_lost(registry_.counter("ftb_agent_tree_events_lost_total",
                                         "Events from other agents given up on after a repair")),
      tree_frames_dropped(registry_.counter("ftb_agent_tree_frames_dropped_total",
                                            "Tree frames dropped for a peer that did not keep up")),
      namespaces_(max_namespaces),
      received_(registry_.counterFamily("ftb_agent_events_received_total",
                                        "Events accepted, by namespace, severity and source "
                                        "(local: this agent's clients; tree: other agents)",
                                        {"namespace", "severity", "source"})),
      delivered_(registry_.counterFamily("ftb_agent_events_delivered_total",
                                         "Event deliveries handed to local subscribers", kEventLabels)),
      dropped_(registry_.counterFamily("ftb_agent_events_dropped_total",
                                       "Event deliveries lost to full subscriber queues (reported to "
                                       "the subscriber as missed)",
                                       kEventLabels)),
      withheld_(registry_.counterFamily("ftb_agent_events_withheld_total",
                                        "Event deliveries the namespace policy kept from a subscriber",
                                        kEventLabels)),
      refusals_(registry_.counterFamily("ftb_agent_refusals_total",
                                        "Refusals: publish_policy (an event refused by the namespace "
                                        "policy), curve_auth (a peer or client whose key is not authorized), "
                                        "admission (a message from a kind of peer that may not send it), "
                                        "hello_origin (a Hello claiming another identity's session)",
                                        {"reason"})),
      latency_(registry_.histogram("ftb_agent_delivery_latency_seconds",
                                   "Publish time (publisher's clock) to handing the event to a local "
                                   "subscriber",
                                   latencyBuckets())) {
  // Present from the start, so a scrape shows zero rather than nothing.
  refusals_.labels({"publish_policy"});
  refusals_.labels({"curve_auth"});
}

EventSeries& AgentMetrics::events(const std::string& event_space, proto::Severity severity) {
  auto it = by_namespace_.find(event_space);
  if (it == by_namespace_.end()) {
    const std::string& ns = namespaces_.map(event_space);
    if (ns == metrics::kOtherValue) return slot(other_, ns, severity);
    it = by_namespace_.emplace(event_space, Slots{}).first;
  }
  return slot(it->second, event_space, severity);
}

EventSeries& AgentMetrics::slot(Slots& slots, const std::string& ns, proto::Severity severity) {
  // Slot 0: unspecified or out-of-range severities (the agent refuses such events).
  const std::size_t index = proto::Severity_IsValid(severity) ? static_cast<std::size_t>(severity) : 0;
  auto& s = slots[index % slots.size()];
  if (!s) {
    const std::string sev = index == 0 ? "UNKNOWN" : proto::Severity_Name(severity);
    s = EventSeries{&received_.labels({ns, sev, "local"}), &received_.labels({ns, sev, "tree"}),
                    &delivered_.labels({ns, sev}), &dropped_.labels({ns, sev}),
                    &withheld_.labels({ns, sev})};
  }
  return *s;
}

void AgentMetrics::observeDelivery(std::chrono::system_clock::time_point published,
                                   std::chrono::system_clock::time_point now) {
  // Clocks of different nodes may disagree: a negative latency counts as zero.
  latency_.observe(std::max(0.0, std::chrono::duration<double>(now - published).count()));
}

void AgentMetrics::refused(Refusal why) {
  const char* reason = "curve_auth";
  switch (why) {
    case Refusal::kPublishPolicy: reason = "publish_policy"; break;
    case Refusal::kCurveAuth: reason = "curve_auth"; break;
    case Refusal::kAdmission: reason = "admission"; break;
    case Refusal::kHelloOrigin: reason = "hello_origin"; break;
  }
  refusals_.labels({reason}).inc();
}

void AgentMetrics::sync(metrics::Counter& counter, uint64_t total) {
  const uint64_t now = counter.value();
  if (total > now) counter.inc(total - now);
}

}  // namespace ftb::agent
