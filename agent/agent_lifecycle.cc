// Agent: what SIGHUP and SIGTERM do. A reload re-reads the configuration and
// applies what can change at run time (Reload::kLive in agent/config/settings.cc),
// warns about each changed restart-only setting and keeps its running value,
// or keeps everything when the new configuration is bad (reload_plan.h); a
// stop drains queued events to their next hop within a bounded time. Both run
// on the event-loop thread.
#include <thread>

#include <spdlog/spdlog.h>

#include "agent/agent.h"
#include "agent/config/reload_plan.h"
#include "agent/config/reload_request.h"

namespace ftb::agent {

int Agent::reload() {
  notifier_.reloading("reloading configuration");
  const std::string serving = fmt::format("serving on {}", fmt::join(endpoints_, ", "));
  Result<PreparedReload> prepared =
      prepareReload(config_, reloader_ ? reloader_() : Result<AgentConfig>(config_));
  if (!prepared.ok()) {
    spdlog::error("configuration not reloaded, the current one stays: {}", prepared.status().message());
    notifier_.ready(serving + "; last reload failed: " + prepared.status().message());
    return kReloadRefused;
  }
  // The settings table decides: live settings take the file's value, restart-only
  // ones keep the running value and are named, one line each (never silently).
  ReloadPlan& plan = prepared->plan;
  for (const std::string& key : plan.restart_pending) spdlog::warn(restartNotice(key));
  const bool seeds_changed = config_.tree_seeds != plan.next.tree_seeds;
  config_ = std::move(plan.next);

  // Side effects of the live settings whose users do not read config_ each time.
  spdlog::set_level(spdlog::level::from_str(config_.log_level));
  for (auto& [id, session] : sessions_) session->outbound.setCapacity(config_.client_queue_events);
  history_.setLimits(config_.history_events, config_.history_bytes,
                     std::chrono::seconds(config_.history_max_age_s));
  history_.prune(clock_.steadyNow());
  if (seeds_changed && tree_) tree_->setSeeds(config_.tree_seeds);
  // The policy was checked above; it applies to connected clients at once.
  policy_ = std::move(prepared->policy);
  for (auto& [id, session] : sessions_) clients_.applyPolicy(*session);

  spdlog::info("configuration reloaded: {}", plan.live_changes.empty()
                                                  ? std::string("nothing changed")
                                                  : fmt::format("{}", fmt::join(plan.live_changes, ", ")));
  if (plan.restart_pending.empty()) {
    notifier_.ready(serving);
    return kReloadApplied;
  }
  notifier_.ready(fmt::format("{}; changed, take effect at restart: {}", serving,
                              fmt::join(plan.restart_pending, ", ")));
  return kReloadAppliedRestartPending;
}

void Agent::drainOnShutdown() {
  const auto deadline = clock_.steadyNow() + kShutdownDrain;
  auto pending = [&] {
    for (auto& [id, s] : sessions_) {
      if (!s->outbound.empty()) return true;
    }
    // Stream connections hold their own backlog (what ZeroMQ's pipes hold for ipc://).
    if (local_ && local_->writePending() > 0) return true;
    return tree_ && tree_->backlogged();
  };
  // Hand what is queued for local subscribers and tree links to ZeroMQ (or write
  // it to the stream sockets) as they make room, until nothing is left or the
  // deadline passes.
  while (pending() && clock_.steadyNow() < deadline) {
    router_.sendQueued();
    if (tree_) tree_->flush(clock_.steadyNow());
    // No wills while the agent stops: its clients lose the agent, not the reverse.
    for (const auto& id : departures_.takeGone()) clients_.end(id, SessionEnd::kShutdown, "its socket is gone");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the subscribers read meanwhile
    notifier_.feedWatchdog(clock_.steadyNow());
  }
  std::size_t left = 0;
  for (auto& [id, s] : sessions_) left += s->outbound.queuedEvents();
  if (left > 0) {
    spdlog::warn("shutting down with {} events still queued for slow local subscribers "
                 "(they were not reading for {} ms)", left, kShutdownDrain.count());
  }
  if (const std::size_t frames = local_ ? local_->writePending() : 0; frames > 0) {
    spdlog::warn("shutting down with {} frames still queued for slow stream subscribers "
                 "(they were not reading for {} ms)", frames, kShutdownDrain.count());
  }
  // ZeroMQ still holds what was handed over: let it write that to the sockets
  // for the rest of the deadline when the socket closes.
  const auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - clock_.steadyNow());
  (void)socket_.set(ZmqOption::kLinger, std::max<int64_t>(rest.count(), 0));
}

}  // namespace ftb::agent
