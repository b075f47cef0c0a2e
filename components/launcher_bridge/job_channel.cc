#include "components/launcher_bridge/job_channel.h"

#include <spdlog/spdlog.h>

#include "client/origin.h"
#include "client/payload_fields.h"

namespace ftb::launcher {

namespace {
constexpr std::size_t kSeenIds = 4096;  // enough to catch one event delivered by several filters
}

std::vector<EventDeclaration> launcherEventDeclarations() {
  return {
      {"FTB_CHECKPOINT", Severity::kInfo},       {"FTB_MIGRATE", Severity::kWarning},
      {"FTB_MIGRATE_IPT", Severity::kInfo},      {"FTB_STOP", Severity::kWarning},
      {"FTB_JOB_STATE", Severity::kInfo},        {"FTB_JOB_FAILED", Severity::kError},
      {"FTB_DECISION", Severity::kWarning},      {"FTB_CHECKPOINT_OUTCOME", Severity::kInfo},
      {"FTB_CHECKPOINT_MISSED", Severity::kError},  {"FTB_JOB_RELAUNCH", Severity::kWarning},
      {"FTB_STOP_FAILED", Severity::kError},     {"FTB_FAILURES", Severity::kInfo},
      {"FTB_TERMINATE_RANK", Severity::kWarning},
  };
}

std::string_view jobStateEventName(std::string_view state) {
  return state == "relaunching" || state == "relaunched" ? "FTB_JOB_RELAUNCH" : "FTB_JOB_STATE";
}

Result<std::unique_ptr<JobChannel>> JobChannel::open(const std::string& job_id, const std::string& agent,
                                                     const std::vector<std::string>& filters,
                                                     const std::string& replay_since) {
  std::optional<HistoryReplay> history;
  if (!replay_since.empty()) {
    auto since = EventId::parse(replay_since);
    if (!since.ok()) return invalidArgument("replay since '" + replay_since + "': " + since.status().message());
    history = HistoryReplay{.since = *since};
  }
  std::unique_ptr<JobChannel> ch(new JobChannel());
  ch->job_id_ = job_id;
  auto jl = Client::connect({.event_space = "FTB.JL." + job_id, .client_name = "ftb-run", .job_id = job_id,
                             .agent_endpoint = agent});
  if (!jl.ok()) return jl.status();
  ch->jl_ = std::move(*jl);
  if (Status s = ch->jl_->declare(launcherEventDeclarations()); !s.ok()) return s;
  auto nla = Client::connect({.event_space = "FTB.NLA." + job_id, .client_name = "ftb-run-nla",
                              .job_id = job_id, .agent_endpoint = agent});
  if (!nla.ok()) return nla.status();
  ch->nla_ = std::move(*nla);
  if (Status s = ch->nla_->declare({{"FTB_NLA_STATE", Severity::kInfo}}); !s.ok()) return s;
  for (const auto& filter : filters) {
    JobChannel* self = ch.get();
    auto sub = ch->jl_->subscribe({.filter = filter,
                                   .callback = [self](const Notification& n) { self->onNotification(n); },
                                   .history = history});
    if (!sub.ok()) return invalidArgument("subscription '" + filter + "': " + sub.status().message());
  }
  return ch;
}

JobChannel::~JobChannel() { close(); }

void JobChannel::close() {
  if (jl_) (void)jl_->disconnect();
  if (nla_) (void)nla_->disconnect();
}

void JobChannel::onNotification(const Notification& n) {
  std::lock_guard lock(mu_);
  if (n.kind == Notification::Kind::kMissed) {
    Event e;
    e.event_name = "FTB_EVENTS_MISSED";
    e.payload = "missed=" + std::to_string(n.missed);
    queue_.push_back(std::move(e));
  } else {
    // Our own events are the story, not inputs: those of this process.
    const proto::Origin& self = localOrigin();
    if (n.event.id.pid == self.pid() && n.event.id.process_start_ns == self.process_start_ns() &&
        n.event.id.host == self.host()) {
      return;
    }
    const std::string id = n.event.id.toString();
    if (!seen_ids_.insert(id).second) return;
    seen_order_.push_back(id);
    if (seen_order_.size() > kSeenIds) {
      seen_ids_.erase(seen_order_.front());
      seen_order_.pop_front();
    }
    queue_.push_back(n.event);
  }
  cv_.notify_one();
}

std::optional<Event> JobChannel::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return !queue_.empty(); })) return std::nullopt;
  Event e = std::move(queue_.front());
  queue_.pop_front();
  return e;
}

Status JobChannel::publishOn(Client& client, const std::string& name, const std::string& text,
                             const Tags& tags) {
  auto id = client.publish(name, formatTagsPayload(text, tags), tags);
  if (!id.ok()) {
    spdlog::error("publishing {} failed: {}", name, id.status().toString());
    return id.status();
  }
  return {};
}

Status JobChannel::publish(const std::string& name, const std::string& text, const Tags& tags) {
  return publishOn(*jl_, name, text, tags);
}

Status JobChannel::publishNodeState(const std::string& host, std::string_view state, const std::string& corr) {
  Tags tags{{"host", host}, {"state", std::string(state)}};
  if (!corr.empty()) tags["corr"] = corr;
  return publishOn(*nla_, "FTB_NLA_STATE", host + " " + std::string(state), tags);
}

}  // namespace ftb::launcher
