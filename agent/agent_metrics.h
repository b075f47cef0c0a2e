// The agent's Prometheus metrics (names and meaning: docs/METRICS.md).
// The event loop updates them (atomics: a scrape never makes it wait); the
// metrics HTTP thread only renders the registry.
// Namespace labels are capped (--metrics-max-namespaces): namespaces first seen
// after the cap is reached are counted under namespace="_other".
// Threading: events(), observeDelivery() and sync*() on the event-loop thread
// only; registry() is safe to render from any thread.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "metrics/capped_label.h"
#include "metrics/registry.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

// The counters of one (namespace, severity) pair.
struct EventSeries {
  metrics::Counter* received_local;  // accepted from this agent's clients (and the agent itself)
  metrics::Counter* received_tree;   // arrived from other agents
  metrics::Counter* delivered;       // handed to a local subscriber (socket or its queue)
  metrics::Counter* dropped;         // lost to a full subscriber queue (reported to it as missed)
  metrics::Counter* withheld;        // matched a subscriber the policy keeps from this namespace
};

class AgentMetrics {
  metrics::Registry registry_;  // first: the references below point into it

 public:
  explicit AgentMetrics(std::size_t max_namespaces);

  metrics::Registry& registry() { return registry_; }

  EventSeries& events(const std::string& event_space, proto::Severity severity);
  // Publish time (the publisher's clock) -> handed to a local subscriber now.
  void observeDelivery(std::chrono::system_clock::time_point published,
                       std::chrono::system_clock::time_point now);

  // kAdmission: a message from a peer of a kind its admission rule refuses
  // (agent/admission.h); kHelloOrigin: a Hello claiming another identity's session.
  enum class Refusal { kPublishPolicy, kCurveAuth, kAdmission, kHelloOrigin };
  void refused(Refusal why);

  // Counters kept elsewhere (proto::Counters, tree stats) are mirrored here by
  // the housekeeping turn: the counter is raised to `total`.
  static void sync(metrics::Counter& counter, uint64_t total);
  void syncCurveRefusals(uint64_t total) { sync(refusals_.labels({"curve_auth"}), total); }

  metrics::Gauge& clients;
  metrics::Gauge& subscriptions;
  metrics::Gauge& queued_events;      // summed over clients
  metrics::Gauge& max_queued_events;  // the most backed-up client
  metrics::Gauge& history_events;
  metrics::Counter& clients_connected;
  metrics::Counter& clients_expired;
  metrics::Counter& bad_frames;
  metrics::Counter& events_rejected;
  metrics::Gauge& tree_state_attached;  // 1 attached to a parent, 0 otherwise
  metrics::Gauge& tree_state_root;      // 1 root of a tree
  metrics::Gauge& tree_links;           // live links (parent + children)
  metrics::Gauge& tree_backlog;         // frames waiting for slow peers
  metrics::Counter& tree_repairs;
  metrics::Histogram& tree_repair_seconds;
  metrics::Counter& tree_events_forwarded;
  metrics::Counter& tree_events_replayed;
  metrics::Counter& tree_duplicates;
  metrics::Counter& tree_events_lost;
  metrics::Counter& tree_frames_dropped;

 private:
  metrics::CappedLabel namespaces_;
  metrics::Family<metrics::Counter>& received_;
  metrics::Family<metrics::Counter>& delivered_;
  metrics::Family<metrics::Counter>& dropped_;
  metrics::Family<metrics::Counter>& withheld_;
  metrics::Family<metrics::Counter>& refusals_;
  metrics::Histogram& latency_;
  // Per namespace (those under the cap only), one slot per severity: the hot
  // path is one hash lookup of the event's own string, no allocation.
  using Slots = std::array<std::optional<EventSeries>, 8>;
  EventSeries& slot(Slots& slots, const std::string& ns, proto::Severity severity);
  std::unordered_map<std::string, Slots> by_namespace_;
  Slots other_;  // namespaces beyond the cap
};

}  // namespace ftb::agent
