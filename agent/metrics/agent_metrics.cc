#include "agent/metrics/agent_metrics.h"

#include "metrics/buckets.h"

namespace ftb::agent {
namespace {

// 100 us .. ~15 s: local deliveries take tens of microseconds, deliveries
// across a tree under repair take about a second.
std::vector<double> latencyBuckets() { return metrics::exponentialBuckets(0.0001, 2.5, 14); }

prometheus::Family<prometheus::Counter>& counters(prometheus::Registry& r, const std::string& name,
                                                  const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(r);
}
prometheus::Counter& counter(prometheus::Registry& r, const std::string& name, const std::string& help) {
  return counters(r, name, help).Add({});
}
prometheus::Gauge& gauge(prometheus::Registry& r, const std::string& name, const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
}
prometheus::Histogram& histogram(prometheus::Registry& r, const std::string& name,
                                 const std::string& help, const std::vector<double>& buckets) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r).Add({}, buckets);
}

}  // namespace

AgentMetrics::AgentMetrics(std::size_t max_event_spaces)
    : clients(gauge(*registry_, "ftb_agent_clients", "Connected clients (SDK and ftbctl sessions)")),
      subscriptions(gauge(*registry_, "ftb_agent_subscriptions", "Subscriptions held by connected clients")),
      queued_events(gauge(*registry_, "ftb_agent_client_queue_events",
                          "Events queued in the agent for clients whose sockets are full, all clients")),
      max_queued_events(gauge(*registry_, "ftb_agent_client_queue_max_events",
                              "Events queued for the most backed-up client")),
      history_events(gauge(*registry_, "ftb_agent_history_events", "Events kept for replay")),
      clients_connected(counter(*registry_, "ftb_agent_clients_connected_total", "Client sessions opened")),
      clients_expired(counter(*registry_, "ftb_agent_clients_expired_total",
                              "Clients dropped after --client-timeout-ms of silence")),
      bad_frames(counter(*registry_, "ftb_agent_bad_frames_total",
                         "Frames that did not decode or were unexpected")),
      events_rejected(counter(*registry_, "ftb_agent_events_rejected_total",
                              "Published events refused for any reason (bad, undeclared, policy)")),
      tree_state_attached(gauge(*registry_, "ftb_agent_tree_attached", "1 when attached to a parent agent")),
      tree_state_root(gauge(*registry_, "ftb_agent_tree_root", "1 when this agent is the root of its tree")),
      tree_links(gauge(*registry_, "ftb_agent_tree_links", "Live tree links (parent and children)")),
      tree_backlog(gauge(*registry_, "ftb_agent_tree_backlog", "1 while some tree peer has frames waiting")),
      tree_retained_events(gauge(*registry_, "ftb_agent_tree_retained_events",
                                 "Events kept for replay after a repair")),
      tree_retained_bytes(gauge(*registry_, "ftb_agent_tree_retained_bytes",
                                "What the events kept for replay count against tree-retention-bytes")),
      tree_repairs(counter(*registry_, "ftb_agent_tree_repairs_total", "Repairs after the parent was lost")),
      tree_repair_seconds(histogram(*registry_, "ftb_agent_tree_repair_seconds",
                                    "Time from losing the parent to being attached again",
                                    metrics::exponentialBuckets(0.05, 2, 10))),
      tree_events_forwarded(counter(*registry_, "ftb_agent_tree_events_forwarded_total",
                                    "Events sent to other agents")),
      tree_events_replayed(counter(*registry_, "ftb_agent_tree_events_replayed_total",
                                   "Events replayed to other agents after repairs")),
      tree_duplicates(counter(*registry_, "ftb_agent_tree_duplicates_total",
                              "Duplicate events from other agents dropped")),
      tree_events_lost(counter(*registry_, "ftb_agent_tree_events_lost_total",
                               "Events from other agents given up on after a repair")),
      tree_frames_dropped(counter(*registry_, "ftb_agent_tree_frames_dropped_total",
                                  "Tree frames dropped for a peer that did not keep up")),
      event_spaces_(max_event_spaces),
      received_(counters(*registry_, "ftb_agent_events_received_total",
                         "Events accepted, by event space, severity and source "
                         "(local: this agent's clients; tree: other agents)")),
      delivered_(counters(*registry_, "ftb_agent_events_delivered_total",
                          "Event deliveries handed to local subscribers")),
      dropped_(counters(*registry_, "ftb_agent_events_dropped_total",
                        "Event deliveries lost to full subscriber queues (reported to the "
                        "subscriber as missed)")),
      withheld_(counters(*registry_, "ftb_agent_events_withheld_total",
                         "Event deliveries the namespace policy kept from a subscriber")),
      refusals_(counters(*registry_, "ftb_agent_refusals_total",
                         "Refusals: publish_policy (an event refused by the namespace policy), "
                         "curve_auth (a peer or client whose key is not authorized), "
                         "admission (a message from a kind of peer that may not send it), "
                         "hello_origin (a Hello claiming another identity's session), "
                         "connection (a stream connection over a descriptor or per-uid limit)")),
      // Present from the start, so a scrape shows zero rather than nothing.
      policy_refusals_(refusals_.Add({{"reason", "publish_policy"}})),
      curve_refusals_(refusals_.Add({{"reason", "curve_auth"}})),
      admission_refusals_(refusals_.Add({{"reason", "admission"}})),
      hello_origin_refusals_(refusals_.Add({{"reason", "hello_origin"}})),
      connection_refusals_(refusals_.Add({{"reason", "connection"}})),
      latency_(histogram(*registry_, "ftb_agent_delivery_latency_seconds",
                         "Publish time (publisher's clock) to handing the event to a local subscriber",
                         latencyBuckets())) {}

EventSeries& AgentMetrics::events(const std::string& event_space, proto::Severity severity) {
  if (last_slots_ != nullptr && *last_space_ == event_space) return slot(*last_slots_, event_space, severity);
  auto it = by_event_space_.find(event_space);
  if (it == by_event_space_.end()) {
    const std::string& label = event_spaces_.map(event_space);
    if (label == metrics::kOtherValue) return slot(other_, label, severity);
    it = by_event_space_.emplace(event_space, Slots{}).first;
  }
  last_space_ = &it->first;
  last_slots_ = &it->second;
  return slot(it->second, event_space, severity);
}

EventSeries& AgentMetrics::slot(Slots& slots, const std::string& event_space, proto::Severity severity) {
  // Slot 0: unspecified or out-of-range severities (the agent refuses such events).
  const std::size_t index = proto::Severity_IsValid(severity) ? static_cast<std::size_t>(severity) : 0;
  auto& s = slots[index % slots.size()];
  if (!s) {
    const std::string sev = index == 0 ? "UNKNOWN" : proto::Severity_Name(severity);
    const prometheus::Labels labels{{"event_space", event_space}, {"severity", sev}};
    auto with_source = [&](const char* source) {
      prometheus::Labels l = labels;
      l.emplace("source", source);
      return l;
    };
    s = EventSeries{&received_.Add(with_source("local")), &received_.Add(with_source("tree")),
                    &delivered_.Add(labels), &dropped_.Add(labels), &withheld_.Add(labels)};
  }
  return *s;
}

void AgentMetrics::observeDelivery(std::chrono::system_clock::time_point published,
                                   std::chrono::system_clock::time_point now) {
  // Clocks of different nodes may disagree: a negative latency counts as zero.
  latency_.Observe(std::max(0.0, std::chrono::duration<double>(now - published).count()));
}

void AgentMetrics::refused(Refusal why) {
  switch (why) {
    case Refusal::kPublishPolicy: policy_refusals_.Increment(); return;
    case Refusal::kCurveAuth: curve_refusals_.Increment(); return;
    case Refusal::kAdmission: admission_refusals_.Increment(); return;
    case Refusal::kHelloOrigin: hello_origin_refusals_.Increment(); return;
  }
}

void AgentMetrics::sync(prometheus::Counter& counter, uint64_t total) {
  // Counters are doubles: exact up to 2^53, far beyond what these counts reach.
  const double now = counter.Value();
  if (static_cast<double>(total) > now) counter.Increment(static_cast<double>(total) - now);
}

}  // namespace ftb::agent
