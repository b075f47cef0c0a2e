// Runtime: the loop/checkpoint/recover API over the writer, restorer, flusher
// and bridge. MPI thread only (the bridge's SDK thread only fills its queue).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <unistd.h>

#include "components/mpi_bridge/bridge.h"
#include "components/mpi_bridge/checkpoint_memory.h"
#include "components/mpi_bridge/determinant_store.h"
#include "components/mpi_bridge/ckpt_restore.h"
#include "components/mpi_bridge/ckpt_writer.h"
#include "components/mpi_bridge/fault_injection.h"
#include "components/mpi_bridge/flusher.h"
#include "components/mpi_bridge/ftbckpt.hpp"
#include "components/mpi_bridge/group_reprotect.h"
#include "components/mpi_bridge/hang_watch.h"
#include "components/mpi_bridge/job.h"
#include "components/mpi_bridge/logged_mpi.h"
#include "components/mpi_bridge/node_encoder.h"
#include "components/mpi_bridge/schedule.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace ftb::mpi_bridge {
namespace {

using Clock = std::chrono::steady_clock;

// How long a rank's exit waits for copies of requests it served but has not
// received yet (see answerLateRequests).
constexpr std::chrono::seconds kLateRequestWait{10};

// Repairs in a row, each ended by another death during its restore, before
// a run-through gives up (a replacement that dies whenever it restores).
constexpr int kRepairsInARow = 3;

// What rank 0 decided at a loop call; broadcast so every rank acts alike.
struct Action {
  enum Kind : int32_t { kNone = 0, kPeriodic = 1, kRequested = 2, kMigrate = 3, kStop = 4 };
  int32_t kind = kNone;
  int32_t level = 0;      // 0: the configured one
  int32_t has_level = 0;  // kStop: checkpoint first
  char key[200] = {};     // the request's event id
  char corr[128] = {};
  char source[128] = {};
};

}  // namespace

double youngInterval(double checkpoint_seconds, double mtbf_seconds) {
  return std::sqrt(2 * checkpoint_seconds * mtbf_seconds);
}

namespace {

void copyField(char* dst, std::size_t size, const std::string& src) {
  std::memset(dst, 0, size);
  std::memcpy(dst, src.data(), std::min(src.size(), size - 1));
}

// How a served request is answered by every rank that received it.
struct Answer {
  bool ok = false;
  CheckpointReport report;
  std::string reason;
};

class RuntimeImpl : public Runtime {
 public:
  // node_comm: this rank's node and its dedicated encoder (FTBCKPT_ENCODER=node), else MPI_COMM_NULL.
  RuntimeImpl(Job job, MPI_Comm node_comm)
      : job_(std::move(job)),
        node_comm_(node_comm),
        writer_(job_),
        flusher_(job_.config.flush_dir.empty()
                     ? nullptr
                     : std::make_unique<Flusher>(job_.config.flush_dir, job_.config.job_id, job_.rank,
                                                 job_.config.flush_mbps)),
        restorer_(job_, flusher_.get()) {}

  Status start() {
    if (job_.config.async) {
      int provided = MPI_THREAD_SINGLE;
      MPI_Query_thread(&provided);
      if (provided < MPI_THREAD_MULTIPLE) {
        return failedPrecondition("FTBCKPT_ASYNC=1 needs MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)");
      }
      writer_.enableAsync();
    }
    if (node_comm_ != MPI_COMM_NULL) writer_.enableNodeEncoder(node_comm_);
    bridge_ = std::make_unique<Bridge>(job_.config, job_.rank, job_.node,
                                       BridgeListeners{.deaths = &deaths_, .nodes = &node_states_});
    if (bridge_->connected() && job_.config.hang_watch) {
      hang_watch_ = std::make_unique<HangWatch>(
          StallBound{.floor = std::chrono::milliseconds(job_.config.hang_floor_ms), .factor = job_.config.hang_factor},
          [bridge = bridge_.get()](std::string_view name, const Tags& tags, std::string_view text) {
            bridge->publish(name, tags, text);
          },
          Tags{{"job", job_.config.job_id}, {"rank", std::to_string(job_.rank)}, {"node", job_.node},
               {"host", job_.node}, {"pid", std::to_string(static_cast<long>(getpid()))}});
    }
    int disconnected = bridge_->connected() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &disconnected, 1, MPI_INT, MPI_SUM, job_.comm);
    learnPeers();
    if (disconnected > 0 && job_.rank == 0 && job_.config.agent) {
      std::fprintf(stderr, "ftbckpt: %d of %d ranks not connected to an ftb agent (rank 0: %s); running without events\n",
                   disconnected, job_.size, bridge_->connected() ? "connected" : bridge_->error().c_str());
    }
    if (!job_.config.schedule.empty() && job_.rank == 0) schedule_ = makeSchedule();
    ulfm_.watch(job_.comm);
    planRestore();
    // A replacement meets its survivors' repairAndRestore here; its replay
    // starts once its restore (the first loop()) started its epoch.
    if (UlfmRecovery::isReplacement()) {
      // Before this process's own log makes the store anew.
      if (job_.config.local_rollback) predecessor_ = DeterminantStore::read(job_.determinantStoreName());
      replacement_replay_ = planLocalRecoveryAfterRepair();
    }
    last_checkpoint_ = Clock::now();
    startLogging(kJobStart);
    if (job_.config.local_rollback) {
      UlfmRecovery::keepWork(true);
      LoggedMpi::onFailure([this] { return ulfm_.failed(); }, [this] { return repairInCall(); });
    }
    return {};
  }

  Status protect(int id, void* ptr, std::size_t bytes) override {
    if (!ptr && bytes > 0) return invalidArgument("protect(" + std::to_string(id) + "): null pointer");
    for (auto& b : buffers_) {
      if (b.id == id) {
        b.ptr = ptr;
        b.bytes = bytes;
        return {};
      }
    }
    buffers_.push_back({id, ptr, bytes});
    return {};
  }

  bool restartAvailable() const override { return plan_.available; }

  Result<RestartReport> recover() override {
    if (!plan_.available) {
      if (plan_.any_data) {
        std::string why = restorer_.scanProblems().empty() ? "" : " (" + restorer_.scanProblems().front() + ")";
        Status s = notFound("checkpoint data of job " + job_.config.job_id +
                            " exists but no level can restore it" + why);
        publishRestartFailed(s.message());
        return s;
      }
      return failedPrecondition("no checkpoint of job " + job_.config.job_id + " to recover");
    }
    dieIfInjected(job_.config.fault, FaultPoint::kRestore, job_.rank);
    // Under local rollback a replacement restores alone: its survivors keep their state.
    auto r = replacement_replay_ ? restorer_.restoreOwnCopy(plan_, buffers_) : restorer_.restore(plan_, buffers_);
    plan_.available = false;
    if (!r) {
      publishRestartFailed(r.status().message());
      return r.status();
    }
    next_ckpt_id_ = r->ckpt_id + 1;
    startLogging(r->ckpt_id);  // every rank restored it: a line no message crosses
    if (replacement_replay_) {
      LoggedMpi::replay(std::move(*replacement_replay_));  // re-executes up to its survivors
      replacement_replay_.reset();
      if (faultDue(job_.config.fault, FaultPoint::kReplay, job_.rank)) {
        LoggedMpi::atFirstSkip([rank = job_.rank] { dieIfInjected({FaultPoint::kReplay, rank}, FaultPoint::kReplay, rank); });
      }
    }
    // Every rank alike (survivors' own source is L1): the checkpoint's slot is kept.
    if (plan_.level != Level::kL1) newest_encoded_id_ = r->ckpt_id;
    Tags tags = {{"corr", job_.config.corr_id},       {"rank", std::to_string(job_.rank)},
                 {"ckpt_id", std::to_string(r->ckpt_id)}, {"level", levelName(r->source)},
                 {"rebuilt", r->rebuilt},             {"seconds", std::to_string(r->seconds)}};
    const bool in_background = reprotect(*r, tags);
    restorer_.reset();
    if (!in_background) bridge_->publish("FTB_RESTART_DONE", tags, "rank restored");
    return r;
  }

  // Protected again at once: when ranks' data had to be rebuilt (their node
  // was lost), the checkpoint it came from lacks their files, and a second
  // loss in the same group before the next periodic checkpoint would be
  // fatal. The groups that lost members write those files again, at the
  // restored checkpoint's id (group_reprotect.h); the others compute on.
  // When the job resumed from the flush, or its groups changed with the new
  // placement, every rank writes the restored state again instead, at the
  // level that survives a node's loss. The outcome goes into
  // FTB_RESTART_DONE's tags, so the launcher's `running` means restored and
  // protected. With FTBCKPT_ASYNC the group's exchange runs on the background
  // thread while the job computes on (its buffers were copied into the new
  // file first): true, and that rank's FTB_RESTART_DONE waits for it
  // (finishBackgroundProtection).
  bool reprotect(const RestartReport& restored, Tags& tags) {
    const bool lost_any =
        plan_.from_flush || std::any_of(plan_.present.begin(), plan_.present.end(), [](char p) { return !p; });
    if (!lost_any || reprotectableInPlace(plan_, job_)) {
      tags["protected_ckpt_id"] = std::to_string(restored.ckpt_id);
      tags["protected_level"] = levelName(plan_.level);
      tags["protect_seconds"] = "0";
      tags["protect_scope"] = "none";
      if (!lost_any || !groupLostMembers(plan_, job_)) return false;
      const auto begin = Clock::now();
      auto p = reprotector_.begin(job_, plan_, restorer_.takeRestoredFile(), buffers_);
      if (!p) {
        reprotectFailed(levelName(plan_.level), p.status(), tags);
        return false;
      }
      tags["protect_scope"] = "group";
      if (writer_.asyncEnabled()) {
        auto pending = std::make_shared<PendingRewrite>(std::move(*p));
        background_protection_ = BackgroundProtection{begin, tags};
        writer_.startInBackground(restored.ckpt_id, [this, pending](MPI_Comm group_comm) {
          return reprotector_.finish(job_, *pending, group_comm).status();
        });
        return true;
      }
      auto w = reprotector_.finish(job_, *p, job_.group_comm);
      if (!w) {
        reprotectFailed(levelName(plan_.level), w.status(), tags);
        return false;
      }
      tags["protect_seconds"] = std::to_string(std::chrono::duration<double>(Clock::now() - begin).count());
      return false;
    }
    const Level level = protectionLevel();
    auto c = checkpointAt(level, restored.iteration, /*wait=*/true);
    if (!c) {
      reprotectFailed(levelName(level), c.status(), tags);
      return false;
    }
    if (schedule_) schedule_->taken(c->level, restored.iteration, secondsNow(), c->seconds);
    tags["protected_ckpt_id"] = std::to_string(c->ckpt_id);
    tags["protected_level"] = levelName(c->level);
    tags["protect_seconds"] = std::to_string(c->seconds);
    tags["protect_scope"] = "job";
    return false;
  }

  // The background re-protection collected (`outcome`): the rank's
  // FTB_RESTART_DONE, protect_seconds from its start to its collection.
  void finishBackgroundProtection(const Status& outcome) {
    BackgroundProtection done = std::move(*background_protection_);
    background_protection_.reset();
    done.tags["protect_background"] = "1";
    if (outcome.ok()) {
      done.tags["protect_seconds"] = std::to_string(std::chrono::duration<double>(Clock::now() - done.begin).count());
    } else {
      reprotectFailed(levelName(plan_.level), outcome, done.tags);
    }
    bridge_->publish("FTB_RESTART_DONE", done.tags, "rank restored");
  }

  void reprotectFailed(const std::string& level, const Status& why, Tags& tags) {
    std::fprintf(stderr, "ftbckpt: rank %d: re-protection after restore failed: %s\n", job_.rank, why.message().c_str());
    publishCheckpointFailed(nullptr, level, why.message());
    for (const char* key : {"protected_ckpt_id", "protected_level", "protect_seconds", "protect_scope"}) tags.erase(key);
    tags["unprotected"] = why.message();
  }

  // The highest level below the flush that the job uses (configured or
  // scheduled): it survives a node's loss without a file system write. A job
  // that uses only L5 gets L1 back (its flushed copy is still whole).
  Level protectionLevel() const {
    Level best = job_.config.level == Level::kL5 ? Level::kL1 : job_.config.level;
    if (job_.config.schedule.empty()) return best;
    auto spec = parseSchedule(job_.config.schedule);
    if (!spec) return best;
    std::vector<Level> used = spec->auto_levels;
    for (const auto& l : spec->levels) used.push_back(l.level);
    if (!spec->automatic || !spec->auto_levels.empty()) best = Level::kL1;  // the schedule names its levels
    for (Level l : used) {
      if (l != Level::kL5 && l > best) best = l;
    }
    return best;
  }

  Result<CheckpointReport> checkpoint(std::optional<Level> requested, long iteration) override {
    return checkpointAt(requested, iteration, /*wait=*/false);
  }

  // wait: also the group part of an asynchronous checkpoint (requests are
  // answered only once the checkpoint is complete everywhere).
  // leaving_node: see CheckpointWriter::write.
  Result<CheckpointReport> checkpointAt(std::optional<Level> requested, long iteration, bool wait,
                                        const std::string& leaving_node = "") {
    if (Status s = finishAsync(); !s.ok()) return s;
    const Level level = requested.value_or(job_.config.level);
    // Two slots alternate by id parity. The slot of the newest checkpoint that
    // survives a node's loss is never overwritten: with a multi-level schedule,
    // L1-only checkpoints skip an id rather than replace it.
    if (newest_encoded_id_ >= 0 && next_ckpt_id_ % 2 == newest_encoded_id_ % 2) ++next_ckpt_id_;
    if (level == Level::kL5 && !flusher_) return invalidArgument("level L5 needs FTBCKPT_FLUSH_DIR");
    if (flusher_ && flusher_->busyWith() && *flusher_->busyWith() % 2 == next_ckpt_id_ % 2) {
      flusher_->wait();  // it still reads the slot this checkpoint overwrites
    }
    const auto begin = Clock::now();
    auto w = writer_.write(next_ckpt_id_, iteration, level, buffers_, leaving_node);
    if (!w) return w.status();
    if (w->pending && wait) {
      if (Status s = writer_.finishPending(); !s.ok()) return s;  // the id is written again next time
    }
    // Said before the agreement on the cost below, so no rank computes past
    // this checkpoint before rank 0 said it: a run killed right after it
    // still shows it (tests:stencil_test reads that output).
    if (!w->pending || wait) {
      traceComplete(next_ckpt_id_, iteration, level);
    } else {
      in_background_ = {next_ckpt_id_, iteration, level};
    }
    double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, job_.comm);
    if (LoggedMpi::started()) {
      if (Status s = LoggedMpi::checkpointLine(next_ckpt_id_); !s.ok()) return s;
    }
    CheckpointReport report{next_ckpt_id_, level, w->bytes, w->stored, seconds};
    if (level == Level::kL5) flusher_->start(next_ckpt_id_, iteration, w->blob, w->bytes, w->blob_crc);
    if (level != Level::kL1) {
      previous_encoded_id_ = newest_encoded_id_;
      newest_encoded_id_ = next_ckpt_id_;
    }
    ++next_ckpt_id_;
    last_checkpoint_ = Clock::now();
    last_cost_ = seconds;
    return report;
  }

  // Every return but kExit hands the rank back to the application, whose
  // progress the hang watch times until the next call.
  Result<long> loop() override {
    if (hang_watch_) hang_watch_->entered();
    Result<long> r = loopStep();
    if (hang_watch_ && r && *r != kExit) hang_watch_->left(*r);
    return r;
  }

  Result<long> loopStep() {
    if (rolled_back_in_call_) return takeRollBackInCall();
    if (first_loop_) {
      first_loop_ = false;
      if (plan_.available || plan_.any_data) {
        auto r = recover();
        // A replacement whose restore a survivor's death ended repairs with them.
        if (!r && ulfm_.failed()) return runThrough();
        if (!r) return r.status();
        iteration_ = r->iteration;
      } else {
        iteration_ = 0;
      }
      last_checkpoint_ = Clock::now();
      return iteration_;
    }
    if (ulfm_.failed()) {
      // Back from a whole iteration: after a local recovery it goes on to the next.
      auto r = runThrough();
      if (!r || !recovered_locally_) return r;
    }
    if (background_protection_ && !writer_.backgroundBusy()) (void)finishAsync();  // its FTB_RESTART_DONE goes out
    ++iteration_;
    for (auto& r : bridge_->take()) {
      if (r.kind == RequestKind::kFailures) {
        failuresReported(r.failures);
      } else {
        pending_.push_back(std::move(r));
      }
    }
    answerServed();
    Action a = decide();
    if (rolled_back_in_call_) return takeRollBackInCall();  // decide's broadcast met the failure
    if (ulfm_.failed()) return runThrough();
    switch (a.kind) {
      case Action::kPeriodic: {
        const std::optional<Level> level =
            a.level ? std::optional<Level>(static_cast<Level>(a.level)) : std::nullopt;
        auto r = checkpoint(level, iteration_);
        if (!r) {
          std::fprintf(stderr, "ftbckpt: rank %d: periodic checkpoint failed: %s\n", job_.rank,
                       r.status().message().c_str());
          publishCheckpointFailed(nullptr, levelName(level.value_or(job_.config.level)), r.status().message());
          // A peer died during it: repair now rather than at the application's
          // next MPI call. The checkpoint's own traffic is not in the log:
          // every rank rolls back.
          if (ulfm_.failed()) {
            LoggedMpi::spoil("a process failure interrupted checkpoint " + std::to_string(next_ckpt_id_));
            return runThrough();
          }
        } else if (schedule_) {
          schedule_->taken(r->level, iteration_, secondsNow(), r->seconds);
          publishScheduleIfChanged();
        }
        break;
      }
      case Action::kRequested:
        serve(a, a.level ? std::optional<Level>(static_cast<Level>(a.level)) : std::nullopt);
        break;
      case Action::kMigrate: {
        bool here = std::find(job_.node_of_rank.begin(), job_.node_of_rank.end(), std::string(a.source)) !=
                    job_.node_of_rank.end();
        if (!here) {
          answers_[a.key] = {false, {}, std::string("no rank of job ") + job_.config.job_id + " runs on " + a.source};
          answerServed();
          break;
        }
        // Only the leaving ranks' data must reach other nodes (at L2); the
        // others restart where their L1 copy is.
        const std::string leaving = job_.config.migrate_level == Level::kL2 ? std::string(a.source) : "";
        if (serve(a, job_.config.migrate_level, leaving)) {
          publishMigratePic(a);
          relaunch_pending_ = true;
          exit_code_ = kExitRelaunch;
          return kExit;
        }
        break;
      }
      case Action::kStop:
        if (a.has_level) {
          if (!serve(a, a.level ? std::optional<Level>(static_cast<Level>(a.level)) : std::nullopt)) break;
          relaunch_pending_ = true;  // the checkpoint is for a later restart
        } else {
          answers_[a.key] = {true, {next_ckpt_id_ - 1, job_.config.level, 0, 0, 0}, ""};
          answerServed();
        }
        exit_code_ = 0;
        return kExit;
      default:
        break;
    }
    answerServed();
    return iteration_;
  }

  MPI_Comm comm() const override { return job_.comm; }
  const std::string& node() const override { return job_.node; }

  // ULFM run-through (ulfm_recovery.h): the survivors repair the communicator
  // with the replacements, then every rank restores the newest checkpoint on
  // it, collectively, exactly as a replacement's init and first loop() do.
  // A process that dies during the restore (a replacement, or a survivor)
  // fails it on every rank with MPI's error: the repair starts over, up to
  // kRepairsInARow times, then the job ends with the restore's error.
  Result<long> runThrough() {
    (void)finishAsync();
    for (int attempt = 1;; ++attempt) {
      auto r = repairAndRestore();
      if (r || !ulfm_.failed() || attempt == kRepairsInARow) return r;
      std::fprintf(stderr, "ftbckpt: rank %d: another process died during recovery %s (%s); repairing again\n",
                   job_.rank, ulfm_.corr().c_str(), r.status().message().c_str());
    }
  }

  Result<long> repairAndRestore() {
    deaths_.repairing();
    auto repaired = ulfm_.repair(job_, job_.config, *bridge_, node_states_);
    if (!repaired) return repaired.status();
    auto job = makeJob(*repaired, job_.config);
    if (!job) return job.status();
    job_ = std::move(*job);
    writer_.forgetSlots();  // the restore unlinks the files of later checkpoints
    // start()'s collectives, in its order, as the replacement runs them: the
    // asynchronous checkpoint's duplicates of the new communicators, then the
    // count of ranks without an agent.
    if (job_.config.async) writer_.enableAsync();
    int disconnected = 0;
    MPI_Allreduce(MPI_IN_PLACE, &disconnected, 1, MPI_INT, MPI_SUM, job_.comm);
    learnPeers();
    restorer_.reset();
    planRestore();
    if (auto replay = planLocalRecoveryAfterRepair()) {
      // Local rollback: this survivor keeps its state; it replays only the
      // collectives a failure inside one left it without.
      LoggedMpi::replay(std::move(*replay));
      restorer_.reset();
      recovered_locally_ = true;
      ulfm_.publishStep(*bridge_, "computing", {{"iteration", std::to_string(iteration_)}, {"recovery", "local"}});
      return iteration_;
    }
    recovered_locally_ = false;
    auto r = recover();
    if (!r) return r.status();
    previous_encoded_id_ = -1;
    iteration_ = r->iteration;
    last_checkpoint_ = Clock::now();
    ulfm_.publishStep(*bridge_, "restored", {{"ckpt_id", std::to_string(r->ckpt_id)}});
    ulfm_.publishStep(*bridge_, "computing", {{"iteration", std::to_string(iteration_)}, {"recovery", "global"}});
    return iteration_;
  }

  // LoggedMpi's repair of a failure that an application's MPI call met
  // (FTBCKPT_LOCAL_ROLLBACK=1): true after a local recovery (the call carries
  // on). Otherwise this rank rolled back (or the repair failed): the call
  // returns its error, and the application's next loop() says where to resume.
  bool repairInCall() {
    auto r = runThrough();
    if (r && recovered_locally_) return true;
    rolled_back_in_call_ = std::move(r);
    UlfmRecovery::rolledBack(true);
    return false;
  }

  Result<long> takeRollBackInCall() {
    Result<long> r = std::move(*rolled_back_in_call_);
    rolled_back_in_call_.reset();
    UlfmRecovery::rolledBack(false);
    return r;
  }

  // Collective: what this rank's node holds of the job's checkpoints and which
  // one every rank can restore; a file that could not be read is said here
  // (at start and after a run-through repair alike).
  void planRestore() {
    plan_ = restorer_.plan();
    for (const auto& p : restorer_.scanProblems()) std::fprintf(stderr, "ftbckpt: rank %d: %s\n", job_.rank, p.c_str());
  }

  // Collective: which process holds each rank now, so that a peer's last will
  // can start a repair and a stale one cannot (peer_deaths.h). If the gather
  // fails (a rank died meanwhile: MPI's error handler has seen it), wills stay
  // ignored until the next repair learns again.
  void learnPeers() {
    long pid = static_cast<long>(getpid());
    std::vector<long> pids(static_cast<std::size_t>(job_.size));
    if (MPI_Allgather(&pid, 1, MPI_LONG, pids.data(), 1, MPI_LONG, job_.comm) != MPI_SUCCESS) return;
    std::vector<PeerProcess> peers;
    for (int r = 0; r < job_.size; ++r) {
      peers.push_back({job_.node_of_rank[static_cast<std::size_t>(r)], pids[static_cast<std::size_t>(r)]});
    }
    deaths_.learn(std::move(peers), job_.rank);
  }

  // Collects a finished (or waits for a running) asynchronous checkpoint; if it
  // failed, its id is reused so the slot of the last complete one survives.
  Status finishAsync() {
    if (!writer_.hasPending()) return {};
    const int64_t id = writer_.pendingId();
    Status s = writer_.finishPending();
    if (background_protection_) {
      finishBackgroundProtection(s);  // the restored checkpoint's id, complete or not: the next is id + 1
      return {};
    }
    if (!s.ok()) {
      next_ckpt_id_ = id;
      if (newest_encoded_id_ == id) newest_encoded_id_ = previous_encoded_id_;
      std::fprintf(stderr, "ftbckpt: rank %d: %s\n", job_.rank, s.message().c_str());
      publishCheckpointFailed(nullptr, levelName(job_.config.level), s.message());
    } else if (in_background_.id == id) {
      traceComplete(id, in_background_.iteration, in_background_.level);  // complete earlier; known now
    }
    return {};
  }

  // FTBCKPT_TRACE=1: rank 0 prints each checkpoint once it is complete on
  // every rank (L5: in node memory; its flush goes on in the background).
  void traceComplete(int64_t id, long iteration, Level level) const {
    if (!trace_ || job_.rank != 0) return;
    std::fprintf(stderr, "ftbckpt: checkpoint %lld (iteration %ld, level %s) complete\n", static_cast<long long>(id),
                 iteration, levelName(level).c_str());
  }

  Status waitFlush() override {
    if (!flusher_) return {};
    flusher_->wait();
    return flusher_->lastError();
  }

  int finalize() override {
    hang_watch_.reset();  // the application is done with its loop
    stopLogging();
    UlfmRecovery::settleBeforeFinalize();
    (void)finishAsync();
    writer_.finish();
    if (flusher_) flusher_->wait();
    if (!relaunch_pending_) {
      writer_.removeAll();
      LoggedMpi::removeStore();
      if (flusher_) {
        std::error_code ec;
        for (int64_t id : flusher_->list()) {
          std::filesystem::remove(flusher_->dir() + "/r" + std::to_string(job_.rank) + "-c" + std::to_string(id) + ".ckpt", ec);
        }
      }
    }
    if (bridge_) {
      answerLateRequests();
      // The launcher's sign that the computation is over: MPI_Finalize may
      // still hang after a ULFM recovery (Open MPI 5.0.7), and a launcher that
      // knows every rank finished ends mpirun after a grace instead of waiting.
      Tags tags = {{"rank", std::to_string(job_.rank)}, {"exit_code", std::to_string(exit_code_)}};
      if (const char* attempt = std::getenv("FTB_RESTART_ATTEMPT")) tags["attempt"] = attempt;
      bridge_->publish("FTB_RANK_FINISHED", tags, "rank finished");
    }
    if (bridge_ && bridge_->failures() > 0) {
      std::fprintf(stderr, "ftbckpt: rank %d: %llu events could not be published\n", job_.rank,
                   static_cast<unsigned long long>(bridge_->failures()));
    }
    bridge_.reset();
    return exit_code_;
  }

 private:
  static constexpr std::int64_t kJobStart = -1;  // the line before any checkpoint

  // Local rollback (FTBCKPT_LOCAL_ROLLBACK=1): a fresh log of the
  // application's traffic on the job's communicator from `line` on.
  void startLogging(std::int64_t line) {
    if (job_.config.local_rollback) {
      LoggedMpi::start(job_.comm, static_cast<std::size_t>(job_.config.log_mb) << 20, line,
                       job_.determinantStoreName());
    }
  }

  // Collective over the repaired communicator, after planRestore
  // (FTBCKPT_LOCAL_ROLLBACK=1): a survivor settles the requests the failure
  // interrupted, every rank gives its log's account, and all make the same
  // plan (local_recovery_plan.h); rank 0 says it, in its log and as the
  // FTB_RUN_THROUGH step `planned`. A local one is carried out at once
  // (resends, the collectives handed over): this rank's part of the replay,
  // or nullopt for global rollback.
  std::optional<RankReplay> planLocalRecoveryAfterRepair() {
    if (!job_.config.local_rollback) return std::nullopt;
    const bool restarted = UlfmRecovery::isReplacement() && !LoggedMpi::started();
    if (!restarted) LoggedMpi::settleInterrupted(job_.comm);
    auto accounts = LoggedMpi::accounts(job_.comm, restarted ? std::optional(replacementAccount()) : std::nullopt);
    if (!accounts) {
      std::fprintf(stderr, "ftbckpt: rank %d: %s\n", job_.rank, accounts.status().message().c_str());
      return std::nullopt;
    }
    LocalRecoveryPlan plan = planLocalRecovery(*accounts, plan_.available ? plan_.ckpt_id : -1);
    if (plan.local && !plan_.available) {
      plan = LocalRecoveryPlan{.why_global = "no checkpoint yet to restart rank " + std::to_string(plan.lost) + " from"};
    } else if (plan.local && (plan_.from_flush || !plan_.present[static_cast<std::size_t>(plan.lost)])) {
      plan = LocalRecoveryPlan{.why_global = "rank " + std::to_string(plan.lost) + "'s copy of checkpoint " +
                                             std::to_string(plan.line) + " is not in its node's memory (it is rebuilt with its group)"};
    }
    if (job_.rank == 0) std::fprintf(stderr, "ftbckpt: rank 0: %s\n", describe(plan).c_str());
    if (!restarted) {
      ulfm_.publishStep(*bridge_, "planned",
                        plan.local ? Tags{{"recovery", "local"}, {"line", std::to_string(plan.line)}}
                                   : Tags{{"recovery", "global"}, {"why", plan.why_global}});
    }
    if (!plan.local) return std::nullopt;
    auto replay = LoggedMpi::carryOut(job_.comm, plan, *accounts);
    if (!replay) {
      std::fprintf(stderr, "ftbckpt: rank %d: local recovery: %s\n", job_.rank, replay.status().message().c_str());
      return std::nullopt;
    }
    if (restarted) replay->determinants = std::move(predecessor_->determinants);
    return std::move(*replay);
  }

  // A replacement's account: it restarted, and can replay if its
  // predecessor's determinants of the epoch to replay are in its node's memory.
  LogAccount replacementAccount() const {
    LogAccount account = restartedAccount();
    const std::int64_t line = plan_.available ? plan_.ckpt_id : kJobStart;
    if (!predecessor_) {
      account.replayable = false;
      account.why_not = "its predecessor's determinants are not in this node's memory (" +
                        predecessor_.status().message() + ")";
    } else if (predecessor_->line != line) {
      account.replayable = false;
      account.why_not = "its predecessor's determinants in this node's memory are of checkpoint line " +
                        std::to_string(predecessor_->line) + ", not " + std::to_string(line);
    }
    return account;
  }

  // Its figures, two lines per rank: what the bound must hold (peak) against
  // it; what logging collectives by their results kept against logging their
  // algorithms' messages.
  void stopLogging() {
    if (!LoggedMpi::started()) return;
    const MessageLog& log = LoggedMpi::log();
    std::fprintf(stderr, "ftbckpt: rank %d: message log peak %.2f MiB of %d MiB (FTBCKPT_LOG_MB)%s%s\n", job_.rank,
                 static_cast<double>(log.peakBytes()) / (1 << 20), job_.config.log_mb,
                 log.replayable() ? "" : "; not replayable since checkpoint line ",
                 log.replayable() ? "" : (std::to_string(log.line()) + ": " + log.whyNotReplayable()).c_str());
    const MessageLog::CollectiveTotals& c = log.collectiveTotals();
    std::fprintf(stderr, "ftbckpt: rank %d: collectives logged %llu, their results %llu bytes; as point-to-point "
                 "messages %llu bytes (collective_expression.h)\n", job_.rank,
                 static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(c.logged_bytes),
                 static_cast<unsigned long long>(c.point_to_point_bytes));
    LoggedMpi::stop();
  }

  // Rank 0 decides for everyone: its oldest unserved request, else Young/Daly.
  // A fixed interval needs no agreement.
  Action decide() {
    Action a;
    if (iteration_ % job_.config.poll_every == 0) {
      if (job_.rank == 0) {
        if (!pending_.empty()) {
          const Request& r = pending_.front();
          a.kind = r.kind == RequestKind::kCheckpoint ? Action::kRequested
                   : r.kind == RequestKind::kMigrate  ? Action::kMigrate
                                                      : Action::kStop;
          a.level = r.level ? static_cast<int32_t>(*r.level) : 0;
          a.has_level = r.level_tag;
          copyField(a.key, sizeof a.key, r.event.id.toString());
          copyField(a.corr, sizeof a.corr, r.corr);
          copyField(a.source, sizeof a.source, r.source);
        } else if (schedule_) {
          if (auto level = schedule_->due(iteration_, secondsNow(), writer_.backgroundBusy())) {
            a.kind = Action::kPeriodic;
            a.level = static_cast<int32_t>(*level);
          }
        } else if (job_.config.mtbf_seconds > 0) {
          double due = youngInterval(last_cost_, job_.config.mtbf_seconds);
          if (std::chrono::duration<double>(Clock::now() - last_checkpoint_).count() >= due) a.kind = Action::kPeriodic;
        }
      }
      // As the application's: a replacement replays what its survivors decided.
      // The kind and level at every poll (12 bytes); a served request's names
      // (456) only with it, as a second broadcast.
      const int rc = LoggedMpi::applicationBcast(&a, offsetof(Action, key), MPI_BYTE, 0, job_.comm);
      if (rc == MPI_SUCCESS && a.kind != Action::kNone && a.kind != Action::kPeriodic) {
        LoggedMpi::applicationBcast(a.key, sizeof a - offsetof(Action, key), MPI_BYTE, 0, job_.comm);
      }
    }
    if (a.kind == Action::kNone && job_.config.schedule.empty() && job_.config.interval > 0 &&
        iteration_ % job_.config.interval == 0) {
      a.kind = Action::kPeriodic;
    }
    return a;
  }

  double secondsNow() const { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

  // FTBCKPT_SCHEDULE (validated by configFromEnvironment). "auto" without
  // levels: L1, the configured level, and L5 when a flush directory is set.
  std::optional<CheckpointSchedule> makeSchedule() {
    ScheduleSpec spec = *parseSchedule(job_.config.schedule);
    if (spec.automatic && spec.auto_levels.empty()) {
      spec.auto_levels = {Level::kL1};
      if (job_.config.level != Level::kL1) spec.auto_levels.push_back(job_.config.level);
      if (!job_.config.flush_dir.empty() && job_.config.level != Level::kL5) spec.auto_levels.push_back(Level::kL5);
    }
    // The rates cover the whole job: its start (FTB_JOB_STARTED, set by ftb-run)
    // and the failures of its earlier runs by kind (FTB_FAILURES). Without them
    // (an older launcher), each earlier attempt counts as a node's loss.
    double elapsed = 0;
    if (const char* started = std::getenv("FTB_JOB_STARTED")) {
      elapsed = std::max(0.0, static_cast<double>(std::time(nullptr)) - std::strtod(started, nullptr));
    }
    CheckpointSchedule schedule(std::move(spec), job_.config.mtbf_seconds, secondsNow() - elapsed);
    FailureHistory history;
    if (const char* failures = std::getenv("FTB_FAILURES")) {
      auto parsed = parseFailureHistory(failures);
      if (parsed) history = *parsed;
      else std::fprintf(stderr, "ftbckpt: ignoring %s\n", parsed.status().message().c_str());
    } else if (const char* attempt = std::getenv("FTB_RESTART_ATTEMPT")) {
      history.node = std::strtol(attempt, nullptr, 10);
    }
    for (long i = 0; i < history.process; ++i) schedule.failureObserved(FailureScope::kProcess);
    for (long i = 0; i < history.node; ++i) schedule.failureObserved(FailureScope::kNode);
    failures_known_ = history;
    return schedule;
  }

  // The job's failure totals as the launcher counts them now (FTB_FAILURES,
  // published while the job runs on: a run-through recovery relaunches
  // nothing, so no new environment tells it). Totals, not increments: a
  // repeated or reordered report counts nothing twice.
  void failuresReported(const FailureHistory& totals) {
    if (!schedule_) return;
    for (; failures_known_.process < totals.process; ++failures_known_.process) {
      schedule_->failureObserved(FailureScope::kProcess);
    }
    for (; failures_known_.node < totals.node; ++failures_known_.node) {
      schedule_->failureObserved(FailureScope::kNode);
    }
    publishScheduleIfChanged();
  }

  // Rank 0 tells what the schedule chose and why (FTB_CKPT_SCHEDULE), whenever
  // an interval moved by more than 10 % since it last told.
  void publishScheduleIfChanged() {
    bool changed = false;
    const auto choices = schedule_->choices(secondsNow());
    for (const auto& c : choices) {
      double& told = told_interval_[static_cast<int>(c.level) - 1];
      if (c.seconds > 0 && std::abs(c.seconds - told) > 0.1 * std::max(told, 1e-9)) {
        told = c.seconds;
        changed = true;
      }
    }
    if (!changed) return;
    for (const auto& c : choices) {
      char interval[32], cost[32], mtbf[32];
      std::snprintf(interval, sizeof interval, "%.3f", c.seconds);
      std::snprintf(cost, sizeof cost, "%.6g", c.cost_seconds);
      std::snprintf(mtbf, sizeof mtbf, "%.0f", c.mtbf_seconds);
      Tags tags = {{"level", levelName(c.level)}, {"interval_s", interval}, {"cost_s", cost},
                   {"why", c.why}};
      if (c.iterations > 0) tags["iterations"] = std::to_string(c.iterations);
      if (schedule_->automatic()) tags["mtbf_s"] = mtbf;
      bridge_->publish("FTB_CKPT_SCHEDULE", tags, "checkpoint schedule");
    }
  }

  // Checkpoints for request `a` and records the answer; true if it succeeded.
  bool serve(const Action& a, std::optional<Level> level, const std::string& leaving_node = "") {
    auto r = checkpointAt(level, iteration_, /*wait=*/true, leaving_node);
    Answer answer;
    answer.ok = r.ok();
    if (r) answer.report = *r;
    answer.reason = r.status().message();
    answer.report.level = level.value_or(job_.config.level);
    answers_[a.key] = answer;
    answerServed();
    return answer.ok;
  }

  // Every request this rank received that has been served gets its response
  // (a rank whose copy arrives late answers at its next loop call).
  void answerServed() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto found = answers_.find(it->event.id.toString());
      if (found == answers_.end()) {
        ++it;
        continue;
      }
      const Answer& ans = found->second;
      if (ans.ok) {
        Tags tags = {{"corr", it->corr},
                     {"rank", std::to_string(job_.rank)},
                     {"ckpt_id", std::to_string(ans.report.ckpt_id)},
                     {"level", levelName(ans.report.level)},
                     {"bytes", std::to_string(ans.report.bytes)},
                     {"seconds", std::to_string(ans.report.seconds)}};
        bridge_->respond(*it, "FTB_CHECKPOINT_DONE", tags, "checkpoint done");
      } else {
        publishCheckpointFailed(&*it, levelName(ans.report.level), ans.reason);
      }
      answers_.erase(found);
      it = pending_.erase(it);
    }
  }

  // Rank 0 decides for everyone, so a rank can serve a request (a stop, a
  // migration) before its own copy of the request arrived; without a next
  // loop call to answer it at, the exit waits a while for those copies
  // (FTB_CHECKPOINT_DONE from every rank is what the launcher counts).
  void answerLateRequests() {
    const auto until = Clock::now() + kLateRequestWait;
    for (;;) {
      for (auto& r : bridge_->take()) {
        if (r.kind != RequestKind::kFailures) pending_.push_back(std::move(r));
      }
      answerServed();
      if (answers_.empty() || Clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!answers_.empty()) {
      std::fprintf(stderr, "ftbckpt: rank %d: %zu served requests never reached this rank: not answered\n", job_.rank,
                   answers_.size());
    }
  }

  void publishCheckpointFailed(const Request* request, const std::string& level, const std::string& reason) {
    Tags tags = {{"corr", request ? request->corr : job_.config.corr_id},
                 {"rank", std::to_string(job_.rank)},
                 {"ckpt_id", std::to_string(next_ckpt_id_)},
                 {"level", level},
                 {"reason", reason}};
    if (request) {
      bridge_->respond(*request, "FTB_CHECKPOINT_FAILED", tags, "checkpoint failed");
    } else {
      bridge_->publish("FTB_CHECKPOINT_FAILED", tags, "checkpoint failed");
    }
  }

  void publishRestartFailed(const std::string& reason) {
    Tags tags = {{"corr", job_.config.corr_id}, {"rank", std::to_string(job_.rank)}, {"reason", reason}};
    bridge_->publish("FTB_RESTART_FAILED", tags, "restart failed");
  }

  // Published once, by the lowest rank on the source node.
  void publishMigratePic(const Action& a) {
    std::string ranks;
    int lowest = -1;
    for (int r = 0; r < job_.size; ++r) {
      if (job_.node_of_rank[r] != a.source) continue;
      if (lowest < 0) lowest = r;
      ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    }
    if (job_.rank != lowest) return;
    Tags tags = {{"corr", a.corr}, {"source", a.source}, {"ranks", ranks}};
    bridge_->publish("FTB_MIGRATE_PIC", tags, "ranks checkpointed and exited");
  }

  Job job_;
  MPI_Comm node_comm_;
  std::vector<Protected> buffers_;
  CheckpointWriter writer_;
  std::unique_ptr<Flusher> flusher_;
  CheckpointRestorer restorer_;
  GroupReprotector reprotector_;
  // A re-protection whose group part runs in the background, and the tags of
  // the FTB_RESTART_DONE that waits for it.
  struct BackgroundProtection {
    Clock::time_point begin;
    Tags tags;
  };
  std::optional<BackgroundProtection> background_protection_;
  // Before bridge_, which holds pointers to them and must go first.
  PeerDeaths deaths_{[](int) { UlfmRecovery::noticedByBackplane(); }};
  NodeStates node_states_;
  std::unique_ptr<Bridge> bridge_;
  std::unique_ptr<HangWatch> hang_watch_;  // after bridge_: it publishes through it, so it stops first
  UlfmRecovery ulfm_;
  RestorePlan plan_;
  std::deque<Request> pending_;
  std::map<std::string, Answer> answers_;  // request event id -> answer
  int64_t next_ckpt_id_ = 0;
  int64_t newest_encoded_id_ = -1;    // newest checkpoint above L1 (-1: none known)
  int64_t previous_encoded_id_ = -1;  // the one before it (an async failure falls back to it)
  struct InBackground {
    int64_t id = -1;
    long iteration = 0;
    Level level = Level::kL1;
  } in_background_;  // the checkpoint whose group part runs on (async, node encoder), for the trace
  const bool trace_ = std::getenv("FTBCKPT_TRACE") != nullptr;
  long iteration_ = 0;
  bool first_loop_ = true;
  bool recovered_locally_ = false;  // the last repair's recovery was local
  // A repair inside an application's MPI call rolled this rank back: what its next loop() returns.
  std::optional<Result<long>> rolled_back_in_call_;
  // A replacement's part of a local recovery, until its restore.
  std::optional<RankReplay> replacement_replay_;
  // Its predecessor's determinants (a replacement under local rollback).
  Result<StoredDeterminants> predecessor_ = notFound("not a replacement");
  bool relaunch_pending_ = false;
  int exit_code_ = 0;
  double last_cost_ = 0;
  Clock::time_point last_checkpoint_;
  std::optional<CheckpointSchedule> schedule_;  // rank 0, with FTBCKPT_SCHEDULE
  FailureHistory failures_known_;               // what schedule_ has counted
  std::array<double, 5> told_interval_{};       // per level, last published
};

}  // namespace

bool Runtime::interrupted() { return UlfmRecovery::interrupted(); }

Result<std::unique_ptr<Runtime>> Runtime::create(MPI_Comm comm, Config config) {
  setHugePages(config.huge_pages);
  // A replacement spawned by a run-through recovery joins the job's communicator here.
  if (Status s = UlfmRecovery::joinIfReplacement(comm, config); !s.ok()) return s;
  MPI_Comm node_comm = MPI_COMM_NULL;
  if (config.node_encoder) {
    if (kUlfmBuilt) {
      // A replacement would have no encoder, and the encoders would keep the
      // old group communicators: run-through recovery and encoders do not mix.
      return failedPrecondition("FTBCKPT_ENCODER=node is not available in a build with run-through recovery (ULFM)");
    }
    auto layout = splitOffNodeEncoders(comm, config);
    if (!layout) return layout.status();
    if (layout->encoder) serveNodeThenExit(*layout, config);
    comm = layout->own_kind;
    node_comm = layout->node_comm;
  }
  auto job = makeJob(comm, std::move(config));
  if (!job) return job.status();
  auto rt = std::make_unique<RuntimeImpl>(std::move(*job), node_comm);
  if (Status s = rt->start(); !s.ok()) return s;
  return std::unique_ptr<Runtime>(std::move(rt));
}

}  // namespace ftb::mpi_bridge
