#include "components/mpi_bridge/ulfm_recovery.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <ctime>

#include <signal.h>
#include <unistd.h>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#if defined(OMPI_HAVE_MPI_EXT_FTMPI) && OMPI_HAVE_MPI_EXT_FTMPI && defined(MPIX_ERR_PROC_FAILED)
#define FTB_ULFM 1
#else
#define FTB_ULFM 0
#endif

namespace ftb::mpi_bridge {

#if FTB_ULFM

const bool kUlfmBuilt = true;

namespace {

std::atomic<bool> g_failed{false};
std::atomic<int64_t> g_detected_ns{0};
std::atomic<int> g_first_class{MPI_SUCCESS};  // the error class that told this rank first
// g_first_class when the backplane told first (no MPI error class is negative).
constexpr int kNoticedByBackplane = -1;
MPI_Comm g_job_comm = MPI_COMM_NULL;
bool g_replacement = false;  // joinIfReplacement joined a job (the MPI thread's)
std::atomic<bool> g_watching{false};  // g_job_comm is set (read off the MPI thread)
std::atomic<bool> g_keep_work{false};    // local rollback: survivors compute on (interrupted())
std::atomic<bool> g_rolled_back{false};  // a repair in an MPI call rolled the rank back
std::mutex g_derived_mu;
std::vector<MPI_Comm> g_derived;  // revoked with g_job_comm (revokeWith)

// The job's communicator and every one derived from it (`fallback` if none is
// watched): every rank's pending and next calls on any of them return,
// wherever it waits.
void revokeAll(MPI_Comm fallback) {
  std::vector<MPI_Comm> derived;
  {
    std::lock_guard lock(g_derived_mu);
    derived = g_derived;
  }
  MPIX_Comm_revoke(g_job_comm != MPI_COMM_NULL ? g_job_comm : fallback);
  for (MPI_Comm c : derived) MPIX_Comm_revoke(c);
}

// Job communicators that repairs replaced (the MPI thread's, as the handler's calls).
std::vector<MPI_Comm> g_replaced;

bool current(MPI_Comm comm) { return std::find(g_replaced.begin(), g_replaced.end(), comm) == g_replaced.end(); }

// The first news of a failure: when and who told (`cls`), written before the
// flag, so that the MPI thread that sees the flag reads them.
void markFailed(int cls) {
  if (g_failed.load()) return;
  g_detected_ns = UlfmRecovery::Clock::now().time_since_epoch().count();
  g_first_class = cls;
  g_failed = true;
}

// MPI calls this inside the call that failed, on the thread that made it.
void onMpiError(MPI_Comm* comm, int* code, ...) {
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(*code, &cls);
  if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_PROC_FAILED_PENDING && cls != MPIX_ERR_REVOKED) return;
  // A communicator a repair replaced: local rollback settles its requests after the repair.
  if (!current(*comm)) return;
  markFailed(cls);
  revokeAll(*comm);
}

const char* className(int cls) {
  return cls == kNoticedByBackplane            ? "a death the backplane announced"
         : cls == MPIX_ERR_PROC_FAILED         ? "MPIX_ERR_PROC_FAILED"
         : cls == MPIX_ERR_PROC_FAILED_PENDING ? "MPIX_ERR_PROC_FAILED_PENDING"
         : cls == MPIX_ERR_REVOKED             ? "MPIX_ERR_REVOKED"
                                               : "none";
}

// "corr\nnode_map\nlost,lost\nNAME=value\n...": what the survivors tell the
// replacements, with the runtime's environment (FTB_*, FTBCKPT_*): a spawned
// process does not inherit what `mpirun -x` gave the job.
std::string encodeInfo(const std::string& corr, const std::string& node_map, const std::vector<int>& lost) {
  std::string text = corr + "\n" + node_map + "\n";
  for (std::size_t i = 0; i < lost.size(); ++i) text += (i ? "," : "") + std::to_string(lost[i]);
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "FTB", 3) == 0 && !std::strchr(*e, '\n')) text += std::string("\n") + *e;
  }
  return text;
}

// Root 0 of `comm` sends `text`; everyone returns it.
int bcastText(std::string& text, MPI_Comm comm) {
  int n = static_cast<int>(text.size());
  int rc = MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) return rc;
  text.resize(n);
  return MPI_Bcast(text.data(), n, MPI_CHAR, 0, comm);
}

std::string joinComma(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out;
}

}  // namespace

Status UlfmRecovery::joinIfReplacement(MPI_Comm& comm, Config& config) {
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  if (parent == MPI_COMM_NULL) return {};
  MPI_Comm merged = MPI_COMM_NULL, joined = MPI_COMM_NULL;
  int rc = MPI_Intercomm_merge(parent, 1, &merged);
  if (rc != MPI_SUCCESS) return mpiStatus(rc, "replacement: MPI_Intercomm_merge");
  std::string text;
  if ((rc = bcastText(text, merged)) != MPI_SUCCESS) return mpiStatus(rc, "replacement: receiving its rank");
  auto lines = split(text, '\n');
  if (lines.size() < 3) return internalError("replacement: malformed repair information '" + text + "'");
  auto lost = split(lines[2], ',');  // in spawn order (spawnApps)
  int index = 0;
  MPI_Comm_rank(comm, &index);  // the spawn's own MPI_COMM_WORLD: one rank per lost rank, in that order
  if (index >= static_cast<int>(lost.size())) return internalError("replacement: more replacements than lost ranks");
  const int old_rank = std::atoi(lost[index].c_str());
  if ((rc = MPI_Comm_split(merged, 0, old_rank, &joined)) != MPI_SUCCESS) {
    return mpiStatus(rc, "replacement: MPI_Comm_split");
  }
  MPI_Comm_free(&merged);
  for (std::size_t i = 3; i < lines.size(); ++i) {
    auto eq = lines[i].find('=');
    if (eq != std::string::npos) setenv(lines[i].substr(0, eq).c_str(), lines[i].substr(eq + 1).c_str(), 1);
  }
  setenv("FTBCKPT_NODE_MAP", lines[1].c_str(), 1);
  setenv("FTB_CORR_ID", lines[0].c_str(), 1);
  auto job_config = configFromEnvironment();  // the job's, no longer this process's own
  if (!job_config) return job_config.status();
  config = std::move(*job_config);
  comm = joined;
  g_replacement = true;
  return {};
}

bool UlfmRecovery::isReplacement() { return g_replacement; }

namespace {

bool runThroughEnabled() {
  const char* v = std::getenv("FTBCKPT_RUN_THROUGH");
  return v == nullptr || std::string(v) != "0";
}

MPI_Errhandler errorHandler() {
  static const MPI_Errhandler handler = [] {
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    MPI_Comm_create_errhandler(onMpiError, &h);
    return h;
  }();
  return handler;
}

// A survivor writes to a dead peer's socket (Open MPI 5.0.7 sends on the TCP
// connection of a replacement that has just died) and SIGPIPE's default
// action ends it: the job loses a second rank for every death. Ignored, the
// write fails with EPIPE and MPI reports the peer's failure. An application
// that handles SIGPIPE itself keeps its handler.
void ignoreSigpipeUnlessHandled() {
  struct sigaction current = {};
  if (sigaction(SIGPIPE, nullptr, &current) != 0) return;
  const bool default_action = (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
  if (default_action) signal(SIGPIPE, SIG_IGN);
}

}  // namespace

void UlfmRecovery::watch(MPI_Comm comm) {
  if (!runThroughEnabled()) return;
  ignoreSigpipeUnlessHandled();
  g_job_comm = comm;
  MPI_Comm_set_errhandler(comm, errorHandler());
  MPI_Comm_rank(comm, &rank_);
  g_watching = true;
}

bool UlfmRecovery::failed() const { return g_failed.load(); }

void UlfmRecovery::settleBeforeFinalize() {
  if (g_watching.load()) (void)MPI_Barrier(g_job_comm);
}

void UlfmRecovery::noticedByBackplane() {
  if (g_watching.load()) markFailed(kNoticedByBackplane);
}

bool UlfmRecovery::interrupted() {
  return g_rolled_back.load() || (g_failed.load() && !g_keep_work.load());
}

void UlfmRecovery::keepWork(bool on) { g_keep_work = on; }
void UlfmRecovery::rolledBack(bool pending) { g_rolled_back = pending; }

void UlfmRecovery::revokeWith(MPI_Comm derived) {
  if (!runThroughEnabled()) return;
  // Its errors must come back as errors too: a group communicator is split
  // before the job's is watched, and would inherit MPI_ERRORS_ARE_FATAL.
  MPI_Comm_set_errhandler(derived, errorHandler());
  std::lock_guard lock(g_derived_mu);
  g_derived.push_back(derived);
}

void UlfmRecovery::forget(MPI_Comm derived) {
  std::lock_guard lock(g_derived_mu);
  std::erase(g_derived, derived);
}

Result<MPI_Comm> UlfmRecovery::repair(const Job& job, Config& config, Bridge& bridge,
                                      const NodeStates& node_states) {
  detected_ = Clock::time_point(Clock::duration(g_detected_ns.load()));
  detected_by_ = g_first_class.load() == kNoticedByBackplane ? "backplane" : "mpi";
  ++recoveries_;
  if (std::getenv("FTBCKPT_RUN_THROUGH_TRACE")) {
    // Every rank, before the shrink that needs them all: a repair that hangs
    // shows who never came.
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    std::fprintf(stderr, "ftbckpt: rank %d noticed a failure (%s), shrinking, time %ld.%06ld\n", job.rank,
                 className(g_first_class.load()), static_cast<long>(now.tv_sec), now.tv_nsec / 1000);
  }
  revokeAll(job.comm);
  MPI_Comm shrunk = MPI_COMM_NULL;
  int rc = MPIX_Comm_shrink(job.comm, &shrunk);
  if (rc != MPI_SUCCESS) return mpiStatus(rc, "MPIX_Comm_shrink");
  {
    // The old job's communicators are revoked for good; the new job registers its own.
    std::lock_guard lock(g_derived_mu);
    g_derived.clear();
  }
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);

  // Which ranks are gone: those of the old communicator absent from the shrunk one.
  MPI_Group old_group, new_group;
  MPI_Comm_group(job.comm, &old_group);
  MPI_Comm_group(shrunk, &new_group);
  std::vector<int> old_ranks(job.size), in_new(job.size);
  for (int r = 0; r < job.size; ++r) old_ranks[r] = r;
  MPI_Group_translate_ranks(old_group, job.size, old_ranks.data(), new_group, in_new.data());
  MPI_Group_free(&old_group);
  MPI_Group_free(&new_group);
  std::vector<int> lost;
  for (int r = 0; r < job.size; ++r) {
    if (in_new[r] == MPI_UNDEFINED) lost.push_back(r);
  }
  lost_.clear();
  for (std::size_t i = 0; i < lost.size(); ++i) lost_ += (i ? "," : "") + std::to_string(lost[i]);
  // Every survivor computes the same id without talking: job, recovery count, lost ranks.
  corr_ = "rt-" + config.job_id + "-" + std::to_string(recoveries_) + "-r" + lost_;
  for (char& c : corr_) {
    if (c == ',') c = '.';
  }
  config.corr_id = corr_;
  rank_ = job.rank;
  reporter_ = 0;
  for (int r : lost) reporter_ += r == reporter_ ? 1 : 0;  // lost is in ascending order
  publishStep(bridge, "detected", {{"by", detected_by_}});
  publishStep(bridge, "shrunk", lost.empty() ? Tags{{"false_alarm", "1"}} : Tags{});
  if (lost.empty()) {
    // A false alarm: the backplane announced a node lost whose ranks all live
    // (only its agent died). Every rank came to the shrink, so the job goes on
    // on the shrunk communicator (the same ranks in the same order), back at
    // its newest checkpoint as after any run-through: the revoke interrupted
    // whatever the application was exchanging.
    g_failed = false;
    g_first_class = MPI_SUCCESS;
    g_replaced.push_back(job.comm);
    watch(shrunk);
    return shrunk;
  }

  // Where the replacements run (replacement_placement.h): in place unless the
  // lost rank's node is suspect or its machine runs none of the job's ranks
  // any more. Rank 0 decides from what it heard of the nodes and tells the
  // others, so that every survivor spawns the same.
  std::string placed;
  int shrunk_rank = 0;
  MPI_Comm_rank(shrunk, &shrunk_rank);
  if (shrunk_rank == 0) {
    std::vector<std::string> spares;
    if (const char* s = std::getenv("FTBCKPT_SPARE_NODES")) spares = split(s, ',');
    placed = joinComma(placeReplacements(lost, job.node_of_rank, spares, node_states.snapshot(),
                                         emptiedNodes(lost, job.node_of_rank, job.host_of_rank)));
  }
  if ((rc = bcastText(placed, shrunk)) != MPI_SUCCESS) {
    return mpiStatus(rc, "telling the survivors where the replacements go");
  }
  const std::vector<std::string> nodes = split(placed, ',');
  if (nodes.size() != job.node_of_rank.size()) return internalError("malformed placement '" + placed + "'");
  config.node_map = placed;

  // The same program with the same arguments.
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  std::vector<std::string> args = split(all, '\0');
  while (!args.empty() && args.back().empty()) args.pop_back();
  std::vector<char*> argv;
  for (std::size_t i = 1; i < args.size(); ++i) argv.push_back(args[i].data());
  argv.push_back(nullptr);
  char exe[4096] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return internalError("cannot read /proc/self/exe to spawn the replacement");

  // Each replacement on the machine its `host` info names: the spare's, else
  // the one the lost rank ran on. Without it mpirun places them by its own
  // mapping, and the node map (the groups' failure domains, where L1 goes)
  // would not say where they are. Node names are machine names unless
  // FTBCKPT_NODE_MAP named several "nodes" on one machine: a spare is then a
  // name only, and the replacement stays on its lost rank's machine. (Not
  // merely FTBCKPT_NODE_MAP's presence: ftb-run always sets it, with the
  // machines' names on a real cluster.)
  const bool spares_are_hosts = nodesAreMachines(job.node_of_rank, job.host_of_rank);
  std::vector<std::string> hosts;
  for (int r : lost) {
    const auto i = static_cast<std::size_t>(r);
    hosts.push_back(nodes[i] != job.node_of_rank[i] && spares_are_hosts ? nodes[i] : job.host_of_rank[i]);
  }
  const std::vector<SpawnApp> apps = spawnApps(lost, hosts);
  const int count = static_cast<int>(apps.size());
  std::vector<MPI_Info> infos(apps.size(), MPI_INFO_NULL);
  std::vector<int> procs;
  std::vector<int> spawn_order;  // the lost rank each spawned rank replaces
  for (std::size_t i = 0; i < apps.size(); ++i) {
    MPI_Info_create(&infos[i]);
    MPI_Info_set(infos[i], "host", apps[i].host.c_str());
    procs.push_back(static_cast<int>(apps[i].ranks.size()));
    spawn_order.insert(spawn_order.end(), apps[i].ranks.begin(), apps[i].ranks.end());
  }
  std::vector<char*> commands(apps.size(), exe);
  std::vector<char**> argvs(apps.size(), argv.data());
  MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL, repaired = MPI_COMM_NULL;
  std::vector<int> codes(lost.size());
  rc = MPI_Comm_spawn_multiple(count, commands.data(), argvs.data(), procs.data(), infos.data(), 0, shrunk, &inter,
                               codes.data());
  for (MPI_Info& info : infos) MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) return mpiStatus(rc, "MPI_Comm_spawn_multiple of the replacements on " + joinComma(hosts));
  if ((rc = MPI_Intercomm_merge(inter, 0, &merged)) != MPI_SUCCESS) return mpiStatus(rc, "MPI_Intercomm_merge");
  std::string text = encodeInfo(corr_, config.node_map, spawn_order);
  if ((rc = bcastText(text, merged)) != MPI_SUCCESS) return mpiStatus(rc, "telling the replacements their ranks");
  if ((rc = MPI_Comm_split(merged, 0, job.rank, &repaired)) != MPI_SUCCESS) return mpiStatus(rc, "MPI_Comm_split");
  MPI_Comm_free(&merged);
  MPI_Comm_free(&shrunk);
  // `inter` stays: MPI_Comm_disconnect on it hangs (Open MPI 5.0.7), and freeing
  // it alone buys nothing.
  std::vector<std::string> where;
  for (int r : lost) where.push_back(nodes[static_cast<std::size_t>(r)]);
  publishStep(bridge, "spawned", {{"nodes", joinComma(where)}, {"hosts", joinComma(hosts)}});
  g_failed = false;
  g_first_class = MPI_SUCCESS;
  g_replaced.push_back(job.comm);
  watch(repaired);
  return repaired;
}

void UlfmRecovery::publishStep(Bridge& bridge, const std::string& step, const Tags& extra) const {
  // One event per step, from the lowest survivor (every rank reports its own
  // restore: FTB_RESTART_DONE).
  if (rank_ != reporter_) return;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", std::chrono::duration<double, std::milli>(Clock::now() - detected_).count());
  Tags tags = {{"corr", corr_}, {"step", step}, {"ranks", lost_}, {"ms", ms}, {"rank", std::to_string(rank_)}};
  for (const auto& [k, v] : extra) tags[k] = v;
  bridge.publish("FTB_RUN_THROUGH", tags, "run-through recovery: " + step);
  if (std::getenv("FTBCKPT_RUN_THROUGH_TRACE")) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    std::string details;  // e.g. " by=mpi", " hosts=n3 nodes=n3"
    for (const auto& [k, v] : extra) details += " " + k + "=" + v;
    std::fprintf(stderr, "ftbckpt: run-through %s rank %d step %s%s at %s ms, time %ld.%06ld\n", corr_.c_str(), rank_,
                 step.c_str(), details.c_str(), ms, static_cast<long>(now.tv_sec), now.tv_nsec / 1000);
  }
}

#else  // no ULFM: run-through is not available, the relaunch path applies.

const bool kUlfmBuilt = false;

Status UlfmRecovery::joinIfReplacement(MPI_Comm&, Config&) { return {}; }
bool UlfmRecovery::isReplacement() { return false; }
void UlfmRecovery::keepWork(bool) {}
void UlfmRecovery::rolledBack(bool) {}
void UlfmRecovery::watch(MPI_Comm) {}
bool UlfmRecovery::failed() const { return false; }
void UlfmRecovery::settleBeforeFinalize() {}
void UlfmRecovery::noticedByBackplane() {}
bool UlfmRecovery::interrupted() { return false; }
void UlfmRecovery::revokeWith(MPI_Comm) {}
void UlfmRecovery::forget(MPI_Comm) {}
Result<MPI_Comm> UlfmRecovery::repair(const Job&, Config&, Bridge&, const NodeStates&) {
  return failedPrecondition("run-through recovery needs an MPI with the ULFM extension");
}
void UlfmRecovery::publishStep(Bridge&, const std::string&, const Tags&) const {}

#endif

}  // namespace ftb::mpi_bridge
