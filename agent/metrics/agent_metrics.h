// The agent's Prometheus metrics (names and meaning: docs/METRICS.md).
// The event loop updates them (atomics: a scrape never makes it wait); the
// metrics HTTP thread only renders the registry.
// Event-space labels are capped (--metrics-max-namespaces): event spaces first
// seen after the cap is reached are counted under event_space="_other".
// Threading: events(), observeDelivery() and sync*() on the event-loop thread
// only; registry() is safe to render from any thread.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <memory>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "metrics/capped_label.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// The counters of one (event space, severity) pair.
struct EventSeries {
  prometheus::Counter* received_local;  // accepted from this agent's clients (and the agent itself)
  prometheus::Counter* received_tree;   // arrived from other agents
  prometheus::Counter* delivered;       // handed to a local subscriber (socket or its queue)
  prometheus::Counter* dropped;         // lost to a full subscriber queue (reported to it as missed)
  prometheus::Counter* withheld;        // matched a subscriber the policy keeps from this event space
};

class AgentMetrics {
  // First: the references below point into it. Shared with the HTTP server.
  std::shared_ptr<prometheus::Registry> registry_ = std::make_shared<prometheus::Registry>();

 public:
  explicit AgentMetrics(std::size_t max_event_spaces);
  // Not copied: a copy's cached slots would point into the original's map.
  AgentMetrics(const AgentMetrics&) = delete;
  AgentMetrics& operator=(const AgentMetrics&) = delete;

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  EventSeries& events(const std::string& event_space, proto::Severity severity);
  // Publish time (the publisher's clock) -> handed to a local subscriber now.
  void observeDelivery(std::chrono::system_clock::time_point published,
                       std::chrono::system_clock::time_point now);

  // kAdmission: a message from a peer of a kind its admission rule refuses
  // (agent/security/admission.h); kHelloOrigin: a Hello claiming another identity's session.
  enum class Refusal { kPublishPolicy, kCurveAuth, kAdmission, kHelloOrigin };
  void refused(Refusal why);

  // Counters kept elsewhere (proto::Counters, tree stats) are mirrored here by
  // the housekeeping turn: the counter is raised to `total`.
  static void sync(prometheus::Counter& counter, uint64_t total);
  void syncCurveRefusals(uint64_t total) { sync(curve_refusals_, total); }
  void syncConnectionRefusals(uint64_t total) { sync(connection_refusals_, total); }

  prometheus::Gauge& clients;
  prometheus::Gauge& subscriptions;
  prometheus::Gauge& queued_events;      // summed over clients
  prometheus::Gauge& max_queued_events;  // the most backed-up client
  prometheus::Gauge& history_events;
  prometheus::Counter& clients_connected;
  prometheus::Counter& clients_expired;
  prometheus::Counter& bad_frames;
  prometheus::Counter& events_rejected;
  prometheus::Gauge& tree_state_attached;  // 1 attached to a parent, 0 otherwise
  prometheus::Gauge& tree_state_root;      // 1 root of a tree
  prometheus::Gauge& tree_links;           // live links (parent + children)
  prometheus::Gauge& tree_backlog;         // frames waiting for slow peers
  prometheus::Gauge& tree_retained_events;  // the replay window (RelayLog)...
  prometheus::Gauge& tree_retained_bytes;   // ...and what it counts against tree-retention-bytes
  prometheus::Counter& tree_repairs;
  prometheus::Histogram& tree_repair_seconds;
  prometheus::Counter& tree_events_forwarded;
  prometheus::Counter& tree_events_replayed;
  prometheus::Counter& tree_duplicates;
  prometheus::Counter& tree_events_lost;
  prometheus::Counter& tree_frames_dropped;

 private:
  metrics::CappedLabel event_spaces_;
  prometheus::Family<prometheus::Counter>& received_;
  prometheus::Family<prometheus::Counter>& delivered_;
  prometheus::Family<prometheus::Counter>& dropped_;
  prometheus::Family<prometheus::Counter>& withheld_;
  prometheus::Family<prometheus::Counter>& refusals_;
  prometheus::Counter& policy_refusals_;
  prometheus::Counter& curve_refusals_;
  prometheus::Counter& admission_refusals_;
  prometheus::Counter& hello_origin_refusals_;
  prometheus::Counter& connection_refusals_;
  prometheus::Histogram& latency_;
  // Per event space (those under the cap only), one slot per severity: the
  // hot path is one hash lookup of the event's own string, no allocation.
  using Slots = std::array<std::optional<EventSeries>, 8>;
  EventSeries& slot(Slots& slots, const std::string& event_space, proto::Severity severity);
  std::unordered_map<std::string, Slots> by_event_space_;  // never loses entries
  // The last event space looked up (each event is looked up twice, and runs
  // of events share a space): pointers into by_event_space_'s stable nodes.
  const std::string* last_space_ = nullptr;
  Slots* last_slots_ = nullptr;
  Slots other_;  // event spaces beyond the cap
};

}  // namespace ftb::agent
