// The agent's side of its metrics: state the housekeeping turn publishes as
// gauges, and counters kept elsewhere mirrored into the registry.
#include "agent/agent.h"

namespace ftb::agent {

void Agent::updateMetrics() {
  std::size_t subscriptions = 0, queued = 0, max_queued = 0;
  for (const auto& [id, s] : sessions_) {
    subscriptions += s->subscriptions.size();
    queued += s->outbound.queuedEvents();
    max_queued = std::max<std::size_t>(max_queued, s->outbound.queuedEvents());
  }
  metrics_.clients.Set(static_cast<double>(sessions_.size()));
  metrics_.subscriptions.Set(static_cast<double>(subscriptions));
  metrics_.queued_events.Set(static_cast<double>(queued));
  metrics_.max_queued_events.Set(static_cast<double>(max_queued));
  metrics_.history_events.Set(static_cast<double>(history_.size()));
  AgentMetrics::sync(metrics_.clients_connected, counters_.clients_connected_total());
  AgentMetrics::sync(metrics_.clients_expired, counters_.clients_expired());
  AgentMetrics::sync(metrics_.bad_frames, counters_.bad_frames());
  AgentMetrics::sync(metrics_.events_rejected, counters_.events_rejected());
  if (curve_) metrics_.syncCurveRefusals(curve_->refused());
  metrics_.syncConnectionRefusals((local_ ? local_->refused() : 0) + tcp_limit_.refused());
  if (tree_) tree_->updateMetrics();
}

}  // namespace ftb::agent
