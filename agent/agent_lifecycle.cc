// Agent: what SIGHUP and SIGTERM do. A reload re-reads the configuration and
// applies what can change at run time, or keeps everything when the new
// configuration is bad; a stop drains queued events to their next hop within
// a bounded time. Both run on the event-loop thread.
#include <thread>

#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/config_check.h"
#include "agent/reload_request.h"

namespace ftb::agent {
namespace {

// "key old->new" for every field that differs, into `changes`.
template <typename T>
void noteChange(std::vector<std::string>& changes, const char* key, const T& before, const T& after) {
  if (before != after) changes.push_back(fmt::format("{} {}->{}", key, before, after));
}

}  // namespace

void Agent::requestReload(pid_t answer_to) {
  if (answer_to > 0) {
    for (auto& slot : reload_requesters_) {
      pid_t empty = 0;
      if (slot.compare_exchange_strong(empty, answer_to)) break;
    }  // all 16 taken: this requester times out, the reload still happens
  }
  reload_.store(true);  // after the pid: the reload that takes it reads the file afterwards
}

void Agent::reloadConfig() {
  // Those who asked before this reload began get its outcome.
  std::vector<pid_t> waiting;
  for (auto& slot : reload_requesters_) {
    if (const pid_t pid = slot.exchange(0); pid > 0) waiting.push_back(pid);
  }
  const bool applied = applyReloadedConfig();
  for (const pid_t pid : waiting) answerReloadRequest(pid, applied ? kReloadApplied : kReloadRefused);
}

bool Agent::applyReloadedConfig() {
  notifier_.reloading("reloading configuration");
  const std::string serving = fmt::format("serving on {}", fmt::join(endpoints_, ", "));
  Result<AgentConfig> loaded = reloader_ ? reloader_() : Result<AgentConfig>(config_);
  if (loaded.ok()) {
    // What `ftb-agent --check-config` refuses, a reload refuses too.
    if (Status checked = checkAgentConfig(*loaded); !checked.ok()) loaded = Result<AgentConfig>(checked);
  }
  Result<NamespacePolicy> policy =
      loaded.ok() ? NamespacePolicy::load(loaded->policy_file) : Result<NamespacePolicy>(loaded.status());
  if (!policy.ok()) {
    spdlog::error("configuration not reloaded, the current one stays: {}", policy.status().message());
    notifier_.ready(serving + "; last reload failed: " + policy.status().message());
    return false;
  }
  AgentConfig next = std::move(loaded).value();
  if (next.name.empty()) next.name = config_.name;

  // Fixed for the life of the process: sockets, identity, keys.
  std::vector<std::string> restart_only;
  auto fixed = [&](const char* key, const auto& before, const auto& after) {
    if (before != after) restart_only.push_back(key);
  };
  fixed("name", config_.name, next.name);
  fixed("ipc-endpoint", config_.ipc_endpoint, next.ipc_endpoint);
  fixed("tcp-endpoint", config_.tcp_endpoint, next.tcp_endpoint);
  fixed("socket-hwm", config_.socket_hwm, next.socket_hwm);
  fixed("ready-file", config_.ready_file, next.ready_file);
  fixed("tree-advertise", config_.tree_advertise, next.tree_advertise);
  fixed("tree-fan-out", config_.tree_fan_out, next.tree_fan_out);
  fixed("tree-heartbeat-ms", config_.tree_heartbeat_ms, next.tree_heartbeat_ms);
  fixed("tree-timeout-ms", config_.tree_timeout_ms, next.tree_timeout_ms);
  fixed("tree-retention-events", config_.tree_retention_events, next.tree_retention_events);
  fixed("tree-retention-s", config_.tree_retention_s, next.tree_retention_s);
  fixed("tree-retention-bytes", config_.tree_retention_bytes, next.tree_retention_bytes);
  if (!restart_only.empty()) {
    spdlog::warn("configuration reload: {} changed but take effect only after a restart",
                 fmt::join(restart_only, ", "));
  }

  std::vector<std::string> changes;
  noteChange(changes, "log-level", config_.log_level, next.log_level);
  noteChange(changes, "max-payload-bytes", config_.max_payload_bytes, next.max_payload_bytes);
  noteChange(changes, "client-queue-events", config_.client_queue_events, next.client_queue_events);
  noteChange(changes, "heartbeat-interval-ms", config_.heartbeat_interval_ms, next.heartbeat_interval_ms);
  noteChange(changes, "client-timeout-ms", config_.client_timeout_ms, next.client_timeout_ms);
  noteChange(changes, "history-events", config_.history_events, next.history_events);
  noteChange(changes, "history-max-age-s", config_.history_max_age_s, next.history_max_age_s);
  noteChange(changes, "history-bytes", config_.history_bytes, next.history_bytes);
  noteChange(changes, "max-subscriptions-per-client", config_.max_subscriptions_per_client,
             next.max_subscriptions_per_client);
  noteChange(changes, "tree-seeds", fmt::format("[{}]", fmt::join(config_.tree_seeds, ",")),
             fmt::format("[{}]", fmt::join(next.tree_seeds, ",")));
  noteChange(changes, "policy-file", config_.policy_file, next.policy_file);

  spdlog::set_level(spdlog::level::from_str(next.log_level));
  config_.log_level = next.log_level;
  config_.max_payload_bytes = next.max_payload_bytes;  // new clients learn it in their Hello reply
  config_.heartbeat_interval_ms = next.heartbeat_interval_ms;
  config_.client_timeout_ms = next.client_timeout_ms;
  config_.max_subscriptions_per_client = next.max_subscriptions_per_client;
  config_.client_queue_events = next.client_queue_events;
  for (auto& [id, session] : sessions_) session->outbound.setCapacity(next.client_queue_events);
  config_.history_events = next.history_events;
  config_.history_max_age_s = next.history_max_age_s;
  config_.history_bytes = next.history_bytes;
  history_.setLimits(next.history_events, next.history_bytes,
                     std::chrono::seconds(next.history_max_age_s));
  history_.prune(std::chrono::steady_clock::now());
  if (config_.tree_seeds != next.tree_seeds) {
    config_.tree_seeds = next.tree_seeds;
    if (tree_) tree_->setSeeds(next.tree_seeds);
  }
  // The policy was checked above; it applies to connected clients at once.
  config_.policy_file = next.policy_file;
  policy_ = std::move(policy).value();
  for (auto& [id, session] : sessions_) applyPolicy(*session);

  spdlog::info("configuration reloaded: {}",
               changes.empty() ? std::string("nothing changed") : fmt::format("{}", fmt::join(changes, ", ")));
  notifier_.ready(serving);
  return true;
}

void Agent::drainOnShutdown() {
  const auto deadline = std::chrono::steady_clock::now() + kShutdownDrain;
  auto pending = [&] {
    for (auto& [id, s] : sessions_) {
      if (!s->outbound.empty()) return true;
    }
    return tree_transport_ && tree_transport_->backlogged();
  };
  // Hand what is queued for local subscribers and tree links to ZeroMQ as
  // their pipes make room, until nothing is left or the deadline passes.
  while (pending() && std::chrono::steady_clock::now() < deadline) {
    flushOutbound();
    if (tree_transport_) tree_transport_->flush(std::chrono::steady_clock::now());
    // No wills while the agent stops: its clients lose the agent, not the reverse.
    for (const auto& id : doomed_) removeSession(id, SessionEnd::kShutdown, "its socket is gone");
    doomed_.clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the subscribers read meanwhile
    notifier_.feedWatchdog(std::chrono::steady_clock::now());
  }
  std::size_t left = 0;
  for (auto& [id, s] : sessions_) left += s->outbound.queuedEvents();
  if (left > 0) {
    spdlog::warn("shutting down with {} events still queued for slow local subscribers "
                 "(they were not reading for {} ms)", left, kShutdownDrain.count());
  }
  // ZeroMQ still holds what was handed over: let it write that to the sockets
  // for the rest of the deadline when the socket closes.
  const auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  socket_.set(zmq::sockopt::linger, static_cast<int>(std::max<int64_t>(rest.count(), 0)));
}

}  // namespace ftb::agent
