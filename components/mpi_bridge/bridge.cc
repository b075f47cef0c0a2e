#include "components/mpi_bridge/bridge.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <signal.h>
#include <unistd.h>

#include "client/payload_fields.h"

namespace ftb::mpi_bridge {
namespace {

// Node states replayed at connect: a few per node of the job and its spares.
constexpr uint32_t kNodeStatesReplayed = 1024;

// How long a rank's exit waits for the agent to acknowledge its last events.
constexpr std::chrono::seconds kExitFlushTimeout{15};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

const std::vector<EventDeclaration> kDeclarations = {
    {"FTB_CHECKPOINT_DONE", Severity::kInfo}, {"FTB_CHECKPOINT_FAILED", Severity::kError},
    {"FTB_MIGRATE_PIC", Severity::kInfo},     {"FTB_RESTART_DONE", Severity::kInfo},
    {"FTB_RESTART_FAILED", Severity::kFatal},     {"FTB_CKPT_SCHEDULE", Severity::kInfo},
    {"FTB_RUN_THROUGH", Severity::kWarning},  {"FTB_RANK_FINISHED", Severity::kInfo},
    {"FTB_MPI_RANK_HUNG", Severity::kError},  {"FTB_MPI_RANK_WAITING", Severity::kWarning},
    {"FTB_MPI_RANK_RESUMED", Severity::kInfo},
};

}  // namespace

LastWill procsDeadWill(const std::string& job_id, int rank, const std::string& node, const std::string& attempt,
                       long pid) {
  Tags tags{{"job", upper(job_id)},
            {"rank", std::to_string(rank)},
            {"host", node},
            {"node", node},
            {"pid", std::to_string(pid)}};
  if (!attempt.empty()) tags["attempt"] = attempt;
  return LastWill{.event_name = std::string(kProcsDeadEvent),
                  .severity = Severity::kFatal,
                  .payload = formatTagsPayload("rank " + std::to_string(rank) + " died", tags),
                  .tags = tags};
}

Result<Request> parseRequest(const Event& event) {
  Request r;
  r.event = event;
  // Tags first; the payload's key=value words for requests sent without tags
  // (Client::request() carries a payload only).
  auto tag = [&](const std::string& key) -> std::string {
    auto it = event.tags.find(key);
    if (it != event.tags.end()) return it->second;
    std::istringstream words(event.payload);
    for (std::string w; words >> w;) {
      if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
    }
    return {};
  };
  r.corr = tag("corr");
  if (event.event_name == "FTB_CHECKPOINT") {
    r.kind = RequestKind::kCheckpoint;
  } else if (event.event_name == "FTB_MIGRATE") {
    r.kind = RequestKind::kMigrate;
    r.source = tag("source");
    if (r.source.empty()) return invalidArgument("FTB_MIGRATE without tag source=<host>");
  } else if (event.event_name == "FTB_STOP") {
    r.kind = RequestKind::kStop;
  } else if (event.event_name == "FTB_TERMINATE_RANK") {
    r.kind = RequestKind::kTerminate;
    const std::string rank = tag("rank"), pid = tag("pid");
    char* end = nullptr;
    r.rank = static_cast<int>(std::strtol(rank.c_str(), &end, 10));
    if (rank.empty() || *end != '\0' || r.rank < 0) return invalidArgument("FTB_TERMINATE_RANK without tag rank=<n>");
    r.pid = pid.empty() ? 0 : std::strtol(pid.c_str(), &end, 10);
    if (!pid.empty() && (*end != '\0' || r.pid <= 0)) return invalidArgument("FTB_TERMINATE_RANK: tag pid=" + pid);
    return r;
  } else if (event.event_name == "FTB_FAILURES") {
    r.kind = RequestKind::kFailures;
    auto failures = parseFailureHistory(tag("failures"));
    if (!failures) return invalidArgument("FTB_FAILURES: tag failures: " + failures.status().message());
    r.failures = *failures;
    return r;
  } else {
    return notFound(event.event_name + " is not a request to the checkpoint runtime");
  }
  std::string level = tag("level");
  r.level_tag = !level.empty();
  if (!level.empty() && level != "auto") {
    auto l = parseLevel(level);
    if (!l) return invalidArgument(event.event_name + ": tag " + l.status().message());
    r.level = *l;
  }
  return r;
}

Bridge::Bridge(const Config& config, int rank, std::string node, BridgeListeners listeners)
    : rank_(rank), node_(std::move(node)), job_id_(config.job_id), listeners_(listeners) {
  if (!config.agent) {
    error_ = "disabled by FTBCKPT_AGENT=0";
    return;
  }
  ClientOptions options{.event_space = std::string(kRuntimeSpace),
                        .client_name = "ftbckpt-r" + std::to_string(rank),
                        .job_id = config.job_id,
                        .rank = rank,  // the agent's tree neighbours then know which ranks live here
                        .connect_timeout = std::chrono::milliseconds(config.agent_timeout_ms)};
  // A rank that dies without finalize() is announced by its agent at once,
  // whatever MPI runs underneath (docs/RECOVERY_EVENTS.md, "Last will").
  // FTB_RESTART_ATTEMPT (set by ftb-run) tells deaths of this run from late
  // ones of an earlier run.
  const char* attempt = std::getenv("FTB_RESTART_ATTEMPT");
  attempt_ = attempt == nullptr ? "" : attempt;
  options.last_will = procsDeadWill(config.job_id, rank, node_, attempt_, static_cast<long>(getpid()));
  auto client = Client::connect(options);
  if (!client) {
    error_ = client.status().toString();
    return;
  }
  if (auto s = (*client)->declare(kDeclarations); !s.ok()) {
    error_ = s.toString();
    return;
  }
  // client_ is set before subscribing: the callback may answer a bad request at once.
  client_ = std::move(*client);
  auto sub = client_->subscribe({.filter = "event_space=FTB.JL." + upper(config.job_id),
                                 .callback = [this](const Notification& n) { onNotification(n); }});
  if (sub && listeners_.deaths != nullptr) {
    // The agent publishes a will as an event of the dead client: our space, our job id.
    sub = client_->subscribe({.filter = "event_space=" + std::string(kRuntimeSpace) + ", event_name=" +
                                        std::string(kProcsDeadEvent) + ", jobid=" + config.job_id,
                              .callback = [this](const Notification& n) {
                                if (n.kind == Notification::Kind::kEvent) onPeerWill(n.event);
                              }});
  }
  if (sub && listeners_.deaths != nullptr) {
    // A node lost with its agent leaves no wills: the tree announces it once.
    sub = client_->subscribe({.filter = "event_space=FTB.AGENT, event_name=FTB_NODE_LOST",
                              .callback = [this](const Notification& n) {
                                if (n.kind == Notification::Kind::kEvent) onNodeLost(n.event);
                              }});
  }
  if (sub && listeners_.nodes != nullptr) {
    // The launcher published its nodes' states at launch, before this rank
    // connected: the agent's history replays the newest (oldest first).
    sub = client_->subscribe({.filter = "event_space=FTB.NLA." + upper(config.job_id) + ", event_name=FTB_NLA_STATE",
                              .callback =
                                  [this](const Notification& n) {
                                    auto host = n.event.tags.find("host"), state = n.event.tags.find("state");
                                    if (n.kind != Notification::Kind::kEvent || host == n.event.tags.end() ||
                                        state == n.event.tags.end()) {
                                      return;
                                    }
                                    listeners_.nodes->update(host->second, state->second);
                                  },
                              .history = HistoryReplay{.last_n = kNodeStatesReplayed}});
  }
  if (!sub) {
    error_ = sub.status().toString();
    (void)client_->disconnect();
    client_.reset();
  }
}

void Bridge::onPeerWill(const Event& will) {
  auto tag = [&](const char* key) {
    auto it = will.tags.find(key);
    return it == will.tags.end() ? std::string() : it->second;
  };
  if (tag("attempt") != attempt_) return;  // a late death of an earlier run
  const std::string rank = tag("rank"), pid = tag("pid");
  if (rank.empty() || pid.empty()) return;  // a will of an older runtime: MPI will tell
  listeners_.deaths->announce(std::atoi(rank.c_str()), tag("node"), std::atol(pid.c_str()));
}

void Bridge::onNodeLost(const Event& lost) {
  auto node = lost.tags.find("node"), job_ranks = lost.tags.find("job_ranks");
  if (node == lost.tags.end() || job_ranks == lost.tags.end()) return;
  listeners_.deaths->announceNode(node->second, ranksOfJob(job_ranks->second, job_id_));
}

Bridge::~Bridge() {
  if (!client_) return;
  // A rank exits right after this: its last answers (FTB_CHECKPOINT_DONE of a
  // stop or a migration, FTB_RANK_FINISHED) must reach the agent first, and on
  // a loaded node the acks can take seconds.
  if (Status s = client_->disconnect(kExitFlushTimeout); !s.ok()) {
    std::fprintf(stderr, "ftbckpt: rank %d: events published before exit may not have reached the agent: %s\n", rank_,
                 s.toString().c_str());
  }
}

void Bridge::onNotification(const Notification& n) {
  if (n.kind == Notification::Kind::kMissed) {
    std::fprintf(stderr, "ftbckpt: rank %d missed %llu launcher events (agent queue overflow)\n", rank_,
                 static_cast<unsigned long long>(n.missed));
    return;
  }
  auto request = parseRequest(n.event);
  if (!request) {
    if (request.status().code() == Code::kNotFound) return;  // the launcher's own story, not for us
    std::fprintf(stderr, "ftbckpt: rank %d: bad request: %s\n", rank_, request.status().message().c_str());
    Tags tags = {{"corr", n.event.tags.count("corr") ? n.event.tags.at("corr") : ""},
                 {"rank", std::to_string(rank_)},
                 {"reason", request.status().message()}};
    if (client_) (void)client_->respond(n.event, "FTB_CHECKPOINT_FAILED", formatTagsPayload("bad request", tags), tags);
    return;
  }
  if (request->kind == RequestKind::kTerminate) {
    terminate(*request);
    return;
  }
  std::lock_guard lock(mu_);
  queue_.push_back(std::move(*request));
}

void Bridge::terminate(const Request& request) {
  if (request.rank != rank_) return;
  if (request.pid != 0 && request.pid != static_cast<long>(getpid())) {
    std::fprintf(stderr, "ftbckpt: rank %d: FTB_TERMINATE_RANK %s names pid %ld, not this process: ignored\n", rank_,
                 request.corr.c_str(), request.pid);
    return;
  }
  std::fprintf(stderr, "ftbckpt: rank %d: ended by the launcher (%s): %s\n", rank_, request.corr.c_str(),
               request.event.payload.c_str());
  // The agent publishes this rank's last will when the connection drops, and
  // the job recovers from it as from any death.
  kill(getpid(), SIGKILL);
}

std::vector<Request> Bridge::take() {
  std::lock_guard lock(mu_);
  std::vector<Request> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

void Bridge::respond(const Request& request, std::string_view event_name, const Tags& tags, std::string_view text) {
  if (!client_) return;
  if (!client_->respond(request.event, event_name, formatTagsPayload(text, tags), tags)) ++failures_;
}

void Bridge::publish(std::string_view event_name, const Tags& tags, std::string_view text) {
  if (!client_) return;
  if (!client_->publish(event_name, formatTagsPayload(text, tags), tags)) ++failures_;
}

}  // namespace ftb::mpi_bridge
