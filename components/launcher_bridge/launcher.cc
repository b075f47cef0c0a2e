#include "components/launcher_bridge/launcher.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ftb::launcher {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {
std::string tag(const Event& e, const std::string& key) {
  auto it = e.tags.find(key);
  return it == e.tags.end() ? "" : it->second;
}

std::pair<int64_t, int64_t> publishTime(const Event& e) { return {e.time_sec, e.time_nsec}; }

// A deadline in the journal is wall-clock time: the steady clock is per boot.
long toEpochMs(steady_clock::time_point t) {
  const auto wall = std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                                           t - steady_clock::now());
  return static_cast<long>(std::chrono::duration_cast<milliseconds>(wall.time_since_epoch()).count());
}
steady_clock::time_point fromEpochMs(long ms) {
  const auto now_ms = std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  return steady_clock::now() + milliseconds(ms) - now_ms;
}
}  // namespace

Launcher::Launcher(LauncherOptions options, JobChannel& channel, Policy& policy, NodeTable& table,
                   NodeAdmin& admin)
    : options_(std::move(options)), channel_(channel), policy_(policy), table_(table), admin_(admin) {
  started_ = static_cast<long>(std::time(nullptr));
  if (options_.resumed_from) {
    // A resumed job is a relaunch of the stopped run: it restores, then computes.
    attempt_ = options_.resumed_from->attempt + 1;
    launch_corr_ = options_.job_id + "-RESUME" + std::to_string(attempt_);
    restoreHistory(*options_.resumed_from);
  }
}

void Launcher::restoreHistory(const JobRecord& record) {
  if (record.started > 0) started_ = record.started;
  process_failures_ = record.process_failures;
  node_failures_ = record.node_failures;
}

void Launcher::jobState(const std::string& state, const std::string& corr, const std::string& extra) {
  Tags tags{{"state", state}, {"attempt", std::to_string(attempt_)}};
  if (!corr.empty()) tags["corr"] = corr;
  (void)channel_.publish(std::string(jobStateEventName(state)), "job " + options_.job_id + " " + state + extra, tags);
  spdlog::info("job {} {} (attempt {}){}", options_.job_id, state, attempt_, extra);
}

void Launcher::publishNodeStates(const std::string& corr) {
  bool changed = false;
  for (const auto& node : table_.nodes()) {
    auto it = published_states_.find(node.name);
    if (it != published_states_.end() && it->second == node.state) continue;
    published_states_[node.name] = node.state;
    changed = true;
    (void)channel_.publishNodeState(node.name, nodeStateName(node.state), corr);
  }
  if (changed && job_.running()) saveJournal("running");  // a decision moved ranks
}

Status Launcher::launch() {
  MpiJobSpec spec = options_.job;
  const bool encoders = options_.node_encoders;
  spec.host_list = table_.hostList(encoders);
  spec.ranks = table_.rankCount() + (encoders ? static_cast<int>(splitList(spec.host_list).size()) : 0);
  if (options_.run_through && !encoders && !table_.spareNames().empty()) {
    // The runtime may spawn a replacement on a spare (when its node is
    // suspect): the spares join mpirun's allocation, after the ranks' nodes.
    spec.host_list = table_.hostListWithSpares();
    spec.env["FTBCKPT_SPARE_NODES"] = joinList(table_.spareNames());
  }
  if (!table_.contiguous()) {
    // A run-through placed some of a node's ranks elsewhere: each rank is
    // relaunched where the table says, named in a rankfile.
    spec.rankfile = options_.state_dir + "/" + options_.job_id + ".rankfile";
    std::error_code ec;
    std::filesystem::create_directories(options_.state_dir, ec);
    std::ofstream out(spec.rankfile, std::ios::trunc);
    out << table_.rankfile(encoders);
    if (!out.flush()) return internalError("cannot write the rankfile " + spec.rankfile);
  }
  spec.env["FTB_JOB_ID"] = options_.job_id;
  spec.env["FTB_RANK_HOSTS"] = table_.rankHosts(encoders);
  spec.env["FTBCKPT_NODE_MAP"] = table_.nodeMap(encoders);
  if (encoders) spec.env["FTBCKPT_ENCODER"] = "node";
  spec.env["FTB_RESTART_ATTEMPT"] = std::to_string(attempt_);
  spec.env["FTB_FAILURES"] = failuresText();
  spec.env["FTB_JOB_STARTED"] = std::to_string(started_);
  if (!launch_corr_.empty()) spec.env["FTB_CORR_ID"] = launch_corr_;
  if (!options_.keeper.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.state_dir, ec);
    spec.keeper = {options_.keeper, "--keep", exitFile(), "--"};
    spec.exit_file = exitFile();
  }
  spec.with_ft_ulfm = options_.run_through;
  restored_.clear();
  finished_.clear();
  finalize_deadline_.reset();
  ended_after_finish_ = false;
  run_through_.reset();
  run_through_done_.clear();
  computing_ = attempt_ == 0;  // a relaunch computes once every rank has restored
  if (Status s = job_.start(spec); !s.ok()) return s;
  publishNodeStates(launch_corr_);
  saveJournal("running");
  jobState(attempt_ == 0 ? "launched" : options_.resumed_from && attempt_ == options_.resumed_from->attempt + 1
                                           ? "resumed"
                                           : "relaunched",
           launch_corr_, " on " + spec.host_list);
  return {};
}

void Launcher::replenishSpares() {
  if (grow_.valid()) {
    if (grow_.wait_for(milliseconds(0)) != std::future_status::ready) return;
    Result<std::vector<std::string>> granted = grow_.get();
    if (!granted.ok()) {
      spdlog::warn("job {}: {} of {} spares; no new node: {} (asking again in {} s)", options_.job_id,
                   table_.spareCount(), options_.min_spares, granted.status().message(), options_.grow_retry_s);
      return;
    }
    const std::string corr = options_.job_id + "-G" + std::to_string(++grows_);
    for (const auto& node : *granted) {
      if (Status s = table_.addSpare(node); !s.ok()) {
        spdlog::warn("granted node {}: {}", node, s.message());
        continue;
      }
      (void)channel_.publish("FTB_DECISION", "new spare " + node + " from " + admin_.name(),
                             {{"corr", corr}, {"rule", "min-spares"}, {"action", "grow"}, {"node", node},
                              {"dry_run", "0"}});
      spdlog::info("job {}: {} granted {} as a spare", options_.job_id, admin_.name(), node);
    }
    publishNodeStates(corr);
    saveJournal("running");
    return;
  }
  const int missing = options_.min_spares - table_.spareCount();
  if (missing <= 0 || steady_clock::now() < next_grow_) return;
  next_grow_ = steady_clock::now() + std::chrono::seconds(options_.grow_retry_s);
  grow_ = std::async(std::launch::async, [this, missing] { return admin_.requestNodes(missing, options_.job_id); });
}

Status Launcher::adoptJob() {
  const JobRecord& journal = *options_.adopt;
  if (Status s = job_.adopt(journal.keeper_pid, journal.exit_file); !s.ok()) return s;
  attempt_ = journal.attempt;
  launch_corr_ = journal.corr;
  restoreHistory(journal);
  computing_ = journal.computing;
  run_through_done_ = journal.run_through_done;
  last_event_ = journal.last_event;
  if (journal.repair_until_ms > 0) {
    // A run-through was under way: hold on until its old deadline. What the
    // runtime published meanwhile comes back from the agent's history.
    run_through_ = PendingRunThrough{.corr = journal.repair_corr, .will = journal.repair_will,
                                     .deadline = fromEpochMs(journal.repair_until_ms)};
    spdlog::warn("adopted during a run-through recovery{}{}: holding on until its deadline",
                 journal.repair_corr.empty() ? "" : " ", journal.repair_corr);
  }
  publishNodeStates(launch_corr_);
  saveJournal("running");
  jobState("adopted", launch_corr_, " (mpirun under keeper pid " + std::to_string(journal.keeper_pid) + ")");
  return {};
}

JobRecord Launcher::journalRecord(const std::string& state) const {
  JobRecord record = options_.record;
  record.job_id = options_.job_id;
  record.state = state;
  record.attempt = attempt_;
  record.corr = launch_corr_;
  record.started = started_;
  record.process_failures = process_failures_;
  record.node_failures = node_failures_;
  record.ranks = table_.rankCount();
  record.nodes.clear();
  record.spares.clear();
  for (const auto& node : table_.nodes()) {
    if (!node.ranks.empty()) record.nodes.push_back(node.name);
    else if (node.state == NodeState::kSpare) record.spares.push_back(node.name);
  }
  if (state == "running") {
    record.keeper_pid = job_.pid();
    record.exit_file = exitFile();
    record.computing = computing_;
    record.table = table_.describe();
    record.last_event = last_event_;
    record.run_through_done = run_through_done_;
    if (run_through_) {
      record.repair_until_ms = toEpochMs(run_through_->deadline);
      record.repair_corr = run_through_->corr;
      record.repair_will = run_through_->will;
    }
  }
  return record;
}

void Launcher::saveJournal(const std::string& state) {
  if (options_.keeper.empty()) return;  // no keeper, nothing to adopt (tests of the loop alone)
  std::error_code ec;
  std::filesystem::create_directories(options_.state_dir, ec);
  const std::string path = jobRecordPath(options_.state_dir, options_.job_id);
  if (Status s = saveJobRecord(path, journalRecord(state)); !s.ok()) {
    spdlog::warn("job {}: journal not written: {}", options_.job_id, s.toString());
  }
}

int Launcher::run() {
  if (Status s = options_.adopt ? adoptJob() : launch(); !s.ok()) {
    spdlog::error("cannot {} the job: {}", options_.adopt ? "adopt" : "start", s.toString());
    return 1;
  }
  if (options_.checkpoint_every_s > 0) {
    next_timer_checkpoint_ = steady_clock::now() + std::chrono::seconds(options_.checkpoint_every_s);
  }
  for (;;) {
    // Every event already queued is handled before the job's exit is looked
    // at: the ranks' last reports precede mpirun's exit.
    if (pump(milliseconds(50))) {
      while (pump(milliseconds(0))) {
      }
    }
    if (!options_.dry_run && !recovery_) replenishSpares();
    const auto now = steady_clock::now();
    if (checkpoint_ && now > checkpoint_->deadline) finishCheckpoint(true);
    // Timer checkpoints only while the ranks compute (not during a relaunch).
    if (options_.checkpoint_every_s > 0 && now > next_timer_checkpoint_ && !checkpoint_ && computing_ &&
        !recovery_) {
      next_timer_checkpoint_ = now + std::chrono::seconds(options_.checkpoint_every_s);
      const std::string corr = options_.job_id + "-T" + std::to_string(++timer_checkpoints_);
      (void)channel_.publish("FTB_DECISION", "timer checkpoint",
                             {{"corr", corr}, {"rule", "timer"}, {"action", "checkpoint"}, {"node", ""},
                              {"dry_run", options_.dry_run ? "1" : "0"}});
      if (!options_.dry_run) startCheckpoint(corr, "timer");
    }
    if (stop_ && job_.running() && now > stop_->deadline) {
      spdlog::error("job {} did not stop within {} ms: its final checkpoint is not complete; it keeps running",
                    options_.job_id, options_.stop_deadline_ms);
      (void)channel_.publish("FTB_STOP_FAILED", "the final checkpoint did not complete in time",
                             {{"corr", stop_->corr}, {"ranks_done", std::to_string(stop_->done.size())}});
      stop_.reset();
    }
    if (run_through_ && job_.running() && now > run_through_->deadline) {
      abandonRunThrough("no FTB_RUN_THROUGH computing within " + std::to_string(options_.run_through_deadline_ms) +
                        " ms");
    }
    if (finalize_deadline_ && job_.running() && !recovery_ && now > *finalize_deadline_) {
      spdlog::warn("every rank finished {} ms ago and mpirun still runs (MPI_Finalize can hang after a recovery): "
                   "ending it",
                   options_.finalize_grace_ms);
      ended_after_finish_ = true;
      job_.terminate();
    }
    if (replacing_ && now > replacing_->deadline) endUnresponsiveRank();
    if (recovery_ && job_.running() && now > recovery_->deadline) {
      spdlog::warn("the job did not exit within {} ms of {}: terminating it", options_.migrate_deadline_ms,
                   recovery_->reason);
      job_.terminate();  // poll() below reports the exit
    }
    if (auto code = job_.poll()) {
      if (auto done = onExit(*code)) return *done;
    }
  }
}

bool Launcher::pump(milliseconds timeout) {
  if (deaths_.open()) {
    timeout = std::min(timeout, std::chrono::duration_cast<milliseconds>(deaths_.closesAt() - steady_clock::now()));
    timeout = std::max(timeout, milliseconds(0));
  }
  std::optional<Event> event = channel_.next(timeout);
  if (event) {
    if (!event->id.host.empty()) last_event_ = event->id.toString();  // journaled with what it changes
    handle(*event);
  }
  std::set<std::string> job_nodes;
  if (deaths_.open()) {
    for (const auto& node : table_.nodes()) {
      if (!node.ranks.empty()) job_nodes.insert(node.name);
    }
  }
  if (deaths_.due(steady_clock::now(), job_nodes)) {
    std::string why;
    std::optional<Event> death = deaths_.settle(job_nodes, &why);
    if (!death) {
      spdlog::warn("{}", why);
    } else if (recovery_) {
      spdlog::info("{} of rank {} on {}: a recovery is under way already", kProcsDead, tag(*death, "rank"),
                   Policy::nodeOf(*death));
    } else {
      decide(*death);
    }
  }
  return event.has_value();
}

void Launcher::handle(const Event& event) {
  if (event.event_name == "FTB_EVENTS_MISSED") {
    spdlog::error("the backplane reports lost events ({})", event.payload);
    return;
  }
  if (event.event_space == options_.runtime_space) handleRuntime(event);
  // A lost agent is evidence, not proof, that its node died (an overloaded
  // agent misses heartbeats too): while the job runs it waits for the job's
  // own exit to confirm it. A spare's moves no rank: it goes through the
  // rules at once, so that the spare is no target any more.
  const NodeInfo* node = table_.find(Policy::nodeOf(event));
  const bool spare = node != nullptr && node->state == NodeState::kSpare;
  if (event.event_space == "FTB.AGENT" && job_.running() && !spare) {
    spdlog::info("{} ({}): kept until the job exits", event.event_name, event.payload);
    agent_losses_.push_back(event);
    return;
  }
  // A rank's last will: acted on once the settle window shows where the fault is.
  if (event.event_name == kProcsDead) {
    if (replacing_ && tag(event, "rank") == std::to_string(replacing_->rank)) {
      spdlog::info("hung rank {} ended ({}): recovering it as any death", replacing_->rank, replacing_->corr);
      replacing_.reset();
    }
    if (recovery_) {
      spdlog::info("{} of rank {} on {}: the run is ending for a recovery already", kProcsDead,
                   tag(event, "rank"), Policy::nodeOf(event));
      return;
    }
    if (options_.run_through && job_.running()) {
      holdForRunThrough(event);
      return;
    }
    const bool first = !deaths_.open();
    if (auto why = deaths_.add(event, options_.job_id, attempt_, steady_clock::now())) {
      spdlog::info("{} ignored: {}", kProcsDead, *why);
      return;
    }
    if (first && job_.running()) {
      // A fail-stop MPI job is lost with any rank: end it now (mpirun's own
      // teardown takes 0.1-0.5 s), then decide where to relaunch once every
      // job node's agent has reported its ranks' deaths (death_window.h).
      spdlog::warn("rank {} died on {}: ending the run now", tag(event, "rank"), Policy::nodeOf(event));
      job_.terminate();  // poll() reports the exit
    }
    return;
  }
  if (event.event_name == kStopRequest) {
    startStop(event);
    return;
  }
  decide(event);
}

void Launcher::startStop(const Event& request) {
  if (stop_ || recovery_ || !computing_) {
    const std::string why = stop_ ? "a stop is under way" : recovery_ ? "a recovery is under way" : "the job is restoring";
    spdlog::warn("{} from {}: refused, {}", kStopRequest, request.client_name, why);
    (void)channel_.publish("FTB_STOP_FAILED", "stop refused: " + why, {{"reason", why}});
    return;
  }
  const std::string corr = options_.job_id + "-S" + std::to_string(attempt_);
  (void)channel_.publish("FTB_DECISION", std::string(kStopRequest) + " -> stop",
                         {{"corr", corr}, {"rule", "operator"}, {"action", "stop"}, {"node", ""},
                          {"dry_run", options_.dry_run ? "1" : "0"}, {"trigger", std::string(kStopRequest)}});
  if (options_.dry_run) return;
  stop_ = PendingStop{.corr = corr, .deadline = steady_clock::now() + milliseconds(options_.stop_deadline_ms)};
  // The ranks checkpoint at a level that outlives the job, answer, and exit 0.
  (void)channel_.publish("FTB_STOP", "checkpoint at " + options_.stop_level + " and stop",
                         {{"corr", corr}, {"level", options_.stop_level}});
}

void Launcher::decide(const Event& event) {
  std::optional<Decision> d = policy_.decide(event);
  if (!d) return;
  for (const auto& why : d->skipped) spdlog::info("{} on {}: rule {}", event.event_name, d->node, why);
  if (d->rule_line == 0) {
    spdlog::info("{} on '{}': no rule applies", event.event_name, d->node);
    return;
  }
  (void)channel_.publish(
      "FTB_DECISION", event.event_name + " -> " + std::string(actionName(d->action)),
      {{"corr", d->corr}, {"rule", std::to_string(d->rule_line)}, {"action", std::string(actionName(d->action))},
       {"node", d->node}, {"target", d->target}, {"ranks", rankList(d->ranks)},
       {"dry_run", options_.dry_run ? "1" : "0"}, {"trigger", event.event_name}});
  if (!options_.dry_run) execute(*d);
}

void Launcher::handleRuntime(const Event& event) {
  const std::string corr = tag(event, "corr");
  const std::string& name = event.event_name;
  if (checkpoint_ && corr == checkpoint_->corr) {
    if (name == "FTB_CHECKPOINT_DONE") checkpoint_->done.insert(std::atoi(tag(event, "rank").c_str()));
    if (name == "FTB_CHECKPOINT_FAILED") checkpoint_->failures.push_back(tag(event, "rank") + ":" + tag(event, "reason"));
    if (static_cast<int>(checkpoint_->done.size() + checkpoint_->failures.size()) >= table_.rankCount()) {
      finishCheckpoint(false);
    }
  }
  if (stop_ && corr == stop_->corr) {
    if (name == "FTB_CHECKPOINT_DONE") stop_->done.insert(std::atoi(tag(event, "rank").c_str()));
    if (name == "FTB_CHECKPOINT_FAILED") {
      // The rank keeps computing (it stops only with its checkpoint complete).
      spdlog::error("rank {} cannot take the final checkpoint: {}; the job keeps running", tag(event, "rank"),
                    tag(event, "reason"));
      (void)channel_.publish("FTB_STOP_FAILED", "the final checkpoint failed: " + tag(event, "reason"),
                             {{"corr", stop_->corr}, {"rank", tag(event, "rank")}, {"reason", tag(event, "reason")}});
      stop_.reset();
    }
  }
  if (name == "FTB_MIGRATE_PIC" && recovery_ && corr == recovery_->corr) {
    spdlog::info("ranks {} of {} checkpointed and left", tag(event, "ranks"), tag(event, "source"));
  }
  if (name == "FTB_RESTART_DONE" && !launch_corr_.empty() && corr == launch_corr_) {
    restored_.insert(std::atoi(tag(event, "rank").c_str()));
    if (static_cast<int>(restored_.size()) == table_.rankCount()) {
      computing_ = true;
      saveJournal("running");
      jobState("running", launch_corr_, " again");
    }
  }
  if (name == "FTB_RUN_THROUGH" && options_.run_through && job_.running() && !recovery_) holdForRunThrough(event);
  if (name == "FTB_RANK_FINISHED") rankFinished(event);
  if (name == "FTB_RESTART_FAILED") spdlog::error("rank {} cannot restore: {}", tag(event, "rank"), event.payload);
}

void Launcher::holdForRunThrough(const Event& event) {
  const bool will = event.event_name == kProcsDead;
  if (will) {
    if (auto why = notThisRun(event, options_.job_id, attempt_)) {
      spdlog::info("{} ignored: {}", kProcsDead, *why);
      return;
    }
    // A will that arrives after its recovery ended (the runtime can be faster
    // than the dead rank's agent) is that recovery's, not a new death.
    auto done = run_through_done_.find(std::atoi(tag(event, "rank").c_str()));
    if (done != run_through_done_.end() && publishTime(event) <= done->second) {
      spdlog::info("{} of rank {}: already run through", kProcsDead, tag(event, "rank"));
      return;
    }
  }
  if (!run_through_) {
    run_through_ = PendingRunThrough{.deadline = steady_clock::now() + milliseconds(options_.run_through_deadline_ms)};
    computing_ = false;  // no timer checkpoint into a repair
    spdlog::warn("{} of rank {}{}: the MPI runs through it; waiting up to {} ms for the runtime's recovery",
                 event.event_name, tag(event, will ? "rank" : "ranks"), will ? " on " + Policy::nodeOf(event) : "",
                 options_.run_through_deadline_ms);
  }
  if (will) {
    if (!run_through_->will) {
      run_through_->will = event;
      saveJournal("running");  // an adopting ftb-run holds on (adoptJob)
    }
    return;
  }
  const std::string step = tag(event, "step");
  const std::string corr = tag(event, "corr");
  const std::string ranks = tag(event, "ranks");
  if (run_through_->corr != corr) {
    // The runtime's correlation id names the whole recovery: ftb-run's
    // decision to let it run carries it too.
    run_through_->corr = corr;
    const std::string node = run_through_->will ? Policy::nodeOf(*run_through_->will) : "";
    const std::string trigger = run_through_->will ? kProcsDead : "FTB_RUN_THROUGH";
    (void)channel_.publish("FTB_DECISION", trigger + " -> run-through",
                           {{"corr", corr}, {"rule", "run-through"}, {"action", "run-through"}, {"node", node},
                            {"ranks", ranks}, {"dry_run", options_.dry_run ? "1" : "0"}, {"trigger", trigger}});
    saveJournal("running");  // after the decision: an adopter tells it again rather than never
  }
  spdlog::info("run-through {}: {} ({} ms)", corr, step, tag(event, "ms"));
  if (step == "spawned") {
    // The runtime placed each replacement in place, or on a spare it was
    // handed when its node was suspect: the table, and so a later relaunch,
    // follows it (NodeTable::recordReplacements).
    std::vector<int> lost;
    for (const std::string& r : splitList(ranks)) lost.push_back(std::atoi(r.c_str()));
    const std::vector<std::string> was = splitList(table_.nodeMap());
    for (int r : table_.recordReplacements(lost, splitList(tag(event, "nodes")))) {
      spdlog::warn("run-through {}: rank {} replaced on a node ftb-run does not know ({}); its table keeps it on {}",
                   corr, r, tag(event, "nodes"), was[static_cast<std::size_t>(r)]);
    }
    std::string table;
    for (const std::string& line : table_.describe()) table += (table.empty() ? "" : "; ") + line;
    spdlog::info("run-through {}: rank(s) {} spawned on {}; the node table now: {}", corr, ranks, tag(event, "nodes"),
                 table);
    publishNodeStates(corr);  // a spare that took ranks READY, a node left without any INACTIVE
  }
  if (step == "computing") {
    const bool false_alarm = ranks.empty();  // a lost agent whose ranks lived: nobody was replaced
    if (!false_alarm) ++process_failures_;
    for (const std::string& r : splitList(ranks)) run_through_done_[std::atoi(r.c_str())] = publishTime(event);
    run_through_.reset();
    computing_ = true;
    jobState("running", corr,
             false_alarm ? " again: nobody was lost (a false alarm), back at the last checkpoint (" + tag(event, "ms") + " ms)"
                         : " again: rank(s) " + ranks + " replaced within the run (" + tag(event, "ms") + " ms)");
    // The run goes on, so no new environment tells the runtime: its "auto"
    // schedule takes the new totals from this event.
    (void)channel_.publish("FTB_FAILURES", "failures so far " + failuresText(),
                           {{"corr", corr}, {"failures", failuresText()}});
    // Journaled after telling: an ftb-run killed in between is adopted from
    // before this step, and the adopter tells it again (the totals stay right).
    saveJournal("running");
  }
}

void Launcher::endUnresponsiveRank() {
  const PendingReplace r = std::move(*replacing_);
  replacing_.reset();
  if (recovery_ || !job_.running()) return;  // something else ends this run already
  spdlog::warn("hung rank {} did not end within {} ms of FTB_TERMINATE_RANK ({}): restarting the run in place",
               r.rank, options_.migrate_deadline_ms, r.corr);
  ++process_failures_;
  recovery_ = PendingRecovery{.corr = r.corr, .reason = "restart", .source = r.node, .target = r.node,
                              .ranks = {r.rank},
                              .deadline = steady_clock::now() + milliseconds(options_.migrate_deadline_ms)};
  job_.terminate();
}

void Launcher::abandonRunThrough(const std::string& why) {
  const PendingRunThrough pending = std::move(*run_through_);
  run_through_.reset();
  spdlog::warn("run-through{}{}: {}; the relaunch path takes over", pending.corr.empty() ? "" : " ",
               pending.corr, why);
  if (pending.will && !recovery_) decide(*pending.will);  // the rules' answer to the death (restart in place)
  if (job_.running()) job_.terminate();  // no rule acted: onExit relaunches an unexplained exit
}

void Launcher::rankFinished(const Event& event) {
  if (notThisRun(event, options_.job_id, attempt_)) return;
  finished_[std::atoi(tag(event, "rank").c_str())] = std::atoi(tag(event, "exit_code").c_str());
  if (static_cast<int>(finished_.size()) == table_.rankCount() && !finalize_deadline_) {
    finalize_deadline_ = steady_clock::now() + milliseconds(options_.finalize_grace_ms);
  }
}

void Launcher::startCheckpoint(const std::string& corr, const std::string& why) {
  if (checkpoint_) {
    // One checkpoint at a time; the requester learns that this one was not taken.
    spdlog::warn("checkpoint {} requested ({}) while {} runs: skipped", corr, why, checkpoint_->corr);
    (void)channel_.publish("FTB_CHECKPOINT_MISSED", "another checkpoint is running",
                           {{"corr", corr}, {"ok", "0"}, {"busy_with", checkpoint_->corr}});
    return;
  }
  const auto now = steady_clock::now();
  checkpoint_ = PendingCheckpoint{.corr = corr, .started = now,
                                  .deadline = now + milliseconds(options_.checkpoint_deadline_ms)};
  (void)channel_.publish("FTB_CHECKPOINT", "checkpoint now (" + why + ")",
                         {{"corr", corr}, {"level", "auto"}, {"ckpt_id", corr}});
}

void Launcher::finishCheckpoint(bool timed_out) {
  const PendingCheckpoint c = std::move(*checkpoint_);
  checkpoint_.reset();
  const auto ms = std::chrono::duration_cast<milliseconds>(steady_clock::now() - c.started).count();
  const bool ok = !timed_out && c.failures.empty() && static_cast<int>(c.done.size()) == table_.rankCount();
  const std::string failures = joinList(c.failures);
  Tags tags{{"corr", c.corr}, {"ok", ok ? "1" : "0"}, {"ranks_done", std::to_string(c.done.size())},
            {"ranks_total", std::to_string(table_.rankCount())}, {"ms", std::to_string(ms)}};
  if (!failures.empty()) tags["failed"] = failures;
  if (timed_out) tags["timed_out"] = "1";
  (void)channel_.publish(ok ? "FTB_CHECKPOINT_OUTCOME" : "FTB_CHECKPOINT_MISSED",
                         ok ? "every rank checkpointed" : "checkpoint incomplete", tags);
}

void Launcher::execute(const Decision& d) {
  const auto deadline = steady_clock::now() + milliseconds(options_.migrate_deadline_ms);
  switch (d.action) {
    case Action::kCheckpoint:
      startCheckpoint(d.corr, d.rule_text);
      break;
    case Action::kMigrate:
      if (Status s = admin_.drain(d.node, "ftb: migrated off (" + d.corr + ")"); !s.ok()) {
        spdlog::error("drain {}: {}", d.node, s.toString());
      }
      publishNodeStates(d.corr);
      ++node_failures_;  // a failing node, left before it fails
      recovery_ = PendingRecovery{.corr = d.corr, .reason = "migrate", .source = d.node, .target = d.target,
                                  .ranks = d.ranks, .deadline = deadline};
      (void)channel_.publish("FTB_MIGRATE", "move the ranks off " + d.node,
                             {{"corr", d.corr}, {"source", d.node}});
      break;
    case Action::kRelaunch:
      if (Status s = admin_.drain(d.node, "ftb: ranks died (" + d.corr + ")"); !s.ok()) {
        spdlog::error("drain {}: {}", d.node, s.toString());
      }
      publishNodeStates(d.corr);
      ++node_failures_;
      recovery_ = PendingRecovery{.corr = d.corr, .reason = "relaunch", .source = d.node, .target = d.target,
                                  .ranks = d.ranks, .deadline = deadline};
      // The survivors may hang on the dead peers: end the run now.
      if (job_.running()) job_.terminate();
      break;
    case Action::kRestart:
      // A rank died on a live node: no node changes; end the run now and
      // relaunch it as it was (onExit), every rank restoring from its own L1.
      ++process_failures_;
      recovery_ = PendingRecovery{.corr = d.corr, .reason = "restart", .source = d.node, .target = d.target,
                                  .ranks = d.ranks, .deadline = deadline};
      if (job_.running()) job_.terminate();
      break;
    case Action::kReplace: {
      // The hung rank's own runtime obeys this on its SDK thread (its MPI
      // thread is the one that hangs); its last will follows.
      const std::string rank = std::to_string(d.ranks.front());
      Tags tags{{"corr", d.corr}, {"rank", rank}, {"node", d.node}};
      if (d.pid > 0) tags["pid"] = std::to_string(d.pid);
      if (Status s = channel_.publish("FTB_TERMINATE_RANK", "end hung rank " + rank + " on " + d.node, tags); !s.ok()) {
        spdlog::error("FTB_TERMINATE_RANK of rank {}: {}", rank, s.toString());  // the deadline below acts instead
      }
      replacing_ = PendingReplace{.corr = d.corr, .node = d.node, .rank = d.ranks.front(), .deadline = deadline};
      break;
    }
    case Action::kSpare:
    case Action::kResume:
      if (Status s = admin_.resume(d.node); !s.ok()) spdlog::error("resume {}: {}", d.node, s.toString());
      publishNodeStates(d.corr);
      break;
    case Action::kDrain:
      if (Status s = admin_.drain(d.node, "ftb: " + d.rule_text); !s.ok()) {
        spdlog::error("drain {}: {}", d.node, s.toString());
      }
      publishNodeStates(d.corr);
      break;
    case Action::kCheckpointIfShare:  // the policy turns it into kCheckpoint
    case Action::kIgnore:
      break;
  }
}

int Launcher::finishStop(int code) {
  // Answers may trail the exit by a moment.
  const auto until = steady_clock::now() + milliseconds(options_.exit_grace_ms);
  while (stop_ && static_cast<int>(stop_->done.size()) < table_.rankCount() && steady_clock::now() < until) {
    pump(milliseconds(50));
  }
  if (!stop_) return code == 0 ? 1 : code;  // a rank's final checkpoint failed (FTB_STOP_FAILED told)
  const PendingStop stop = std::move(*stop_);
  stop_.reset();
  if (code != 0 || static_cast<int>(stop.done.size()) < table_.rankCount()) {
    (void)channel_.publish("FTB_STOP_FAILED", "the job ended before its final checkpoint was complete",
                           {{"corr", stop.corr}, {"exit_code", std::to_string(code)},
                            {"ranks_done", std::to_string(stop.done.size())}});
    spdlog::error("job {} ended with {} and {} of {} final checkpoints: not resumable", options_.job_id, code,
                  stop.done.size(), table_.rankCount());
    return code == 0 ? 1 : code;
  }
  JobRecord record = journalRecord("stopped");
  record.corr = stop.corr;
  record.level = options_.stop_level;
  const std::string path = jobRecordPath(options_.state_dir, options_.job_id);
  std::error_code ec;
  std::filesystem::create_directories(options_.state_dir, ec);
  if (Status s = saveJobRecord(path, record); !s.ok()) {
    spdlog::error("job {} stopped but its record was not saved: {}", options_.job_id, s.toString());
    (void)channel_.publish("FTB_STOP_FAILED", "the job stopped but its record was not saved: " + s.message(),
                           {{"corr", stop.corr}});
    return 1;
  }
  jobState("stopped", stop.corr, " (" + options_.stop_level + "); resume with ftb-run --resume --job " +
                                     options_.job_id + " (record " + path + ")");
  return 0;
}

std::optional<int> Launcher::onExit(int code) {
  // The ranks are gone: a checkpoint still waiting for answers will not get them.
  if (checkpoint_) finishCheckpoint(true);
  if (run_through_) abandonRunThrough("mpirun exited with " + std::to_string(code) + " during the repair");
  if (!recovery_ && code != 0 && static_cast<int>(finished_.size()) == table_.rankCount()) {
    // The computation is complete: only MPI's teardown failed or hung.
    int ranks_code = 0;
    for (const auto& [rank, c] : finished_) ranks_code = ranks_code != 0 ? ranks_code : c;
    spdlog::warn("mpirun {} with {} after every rank finished: the run counts as ended by its ranks ({})",
                 ended_after_finish_ ? "was ended" : "exited", code, ranks_code);
    code = ranks_code;
  }
  if (stop_ && !recovery_) return finishStop(code);
  if (!recovery_ && code != 0) {
    std::vector<Event> losses;
    losses.swap(agent_losses_);
    for (const Event& e : losses) handle(e);
  }
  agent_losses_.clear();
  if (!recovery_ && code != 0) {
    // An exit nobody announced: give the events that explain it (a dead node's
    // FTB_MPI_PROCS_DEAD, a fan failure ...) a moment to arrive.
    if (deaths_.open()) {
      spdlog::info("mpirun exited with {}; deciding once the ranks' deaths are in", code);
    } else {
      spdlog::warn("mpirun exited with {} unannounced; waiting {} ms for events", code, options_.exit_grace_ms);
    }
    const auto until = steady_clock::now() + milliseconds(options_.exit_grace_ms);
    while (!recovery_ && steady_clock::now() < until) pump(milliseconds(50));
  }
  if (!recovery_ && code == 0) {
    saveJournal("finished");
    jobState("finished", launch_corr_);
    return 0;
  }
  if (attempt_ >= options_.max_restarts) {
    (void)channel_.publish("FTB_JOB_FAILED", "job failed after " + std::to_string(attempt_) + " restarts",
                           {{"corr", recovery_ ? recovery_->corr : launch_corr_}, {"exit_code", std::to_string(code)},
                            {"attempt", std::to_string(attempt_)}, {"state", "failed"}});
    spdlog::error("job {} failed: exit {} and no restarts left ({})", options_.job_id, code, options_.max_restarts);
    saveJournal("failed");
    return code == 0 ? 1 : code;
  }
  if (!recovery_) ++process_failures_;  // an exit nobody explained: at least a process failed
  ++attempt_;
  if (recovery_) {
    launch_corr_ = recovery_->corr;
    if (recovery_->reason != "restart") {  // a restart moves no ranks
      (void)channel_.publish("FTB_MIGRATE_IPT", "ranks restart on " + recovery_->target,
                             {{"corr", recovery_->corr}, {"target", recovery_->target},
                              {"ranks", rankList(recovery_->ranks)}});
    }
  } else {
    launch_corr_ = options_.job_id + "-R" + std::to_string(attempt_);
  }
  jobState("relaunching", launch_corr_, " after exit " + std::to_string(code));
  recovery_.reset();
  deaths_.clear();
  if (Status s = launch(); !s.ok()) {
    spdlog::error("cannot relaunch: {}", s.toString());
    return 1;
  }
  return std::nullopt;
}

}  // namespace ftb::launcher
