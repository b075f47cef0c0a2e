// Local recovery carried out (logged_mpi.h): the repair hook a failing logged
// call runs, the settling of the requests the failure interrupted, the
// resends and the collectives handed over after a plan, and the replay a rank
// does until it caught up (skipped sends, handed-over collective results).
#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "components/mpi_bridge/interposition.h"
#include "components/mpi_bridge/logged_mpi.h"
#include "components/mpi_bridge/word_codec.h"

namespace ftb::mpi_bridge {
namespace {

using interposition::logging;
using interposition::LoggedRequest;

struct Replay {
  std::map<Channel, std::uint64_t> skips;
  std::deque<std::vector<std::byte>> collectives;
  std::uint64_t collectives_taken = 0;  // the index of the next one
  std::map<std::uint64_t, std::vector<std::optional<std::vector<std::byte>>>> gathered;
  std::deque<Determinant> determinants;  // in order, but for the next:
  std::map<int, Channel> posted_matches;  // wildcard MPI_Irecv number -> its match
  std::vector<MPI_Request> resends;  // this rank's, finishing in the background
};

Replay g_replay;
std::function<bool()> g_failure_pending;  // a process failure is known (the runtime's ULFM state)
std::function<bool()> g_repair;
std::function<void()> g_at_first_skip;  // tests: fault injection

int rankIn(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

// Every resend finished: before the log's payloads are reused or dropped.
void finishResends() {
  if (g_replay.resends.empty()) return;
  PMPI_Waitall(static_cast<int>(g_replay.resends.size()), g_replay.resends.data(), MPI_STATUSES_IGNORE);
  g_replay.resends.clear();
}

// The survivor `from` sends the results of collectives [first, last) of its
// log to every rank; each keeps those it lacks (it completed `mine`).
Result<std::vector<std::vector<std::byte>>> handOverCollectives(MPI_Comm comm, int from, std::uint64_t first,
                                                                std::uint64_t last, std::uint64_t mine) {
  WordWriter w;
  if (rankIn(comm) == from) {
    for (std::uint64_t i = first; i < last; ++i) {
      std::span<const std::byte> result = logging().log->collectiveResult(i);
      const auto* p = reinterpret_cast<const std::uint8_t*>(result.data());
      w.blob(std::vector<std::uint8_t>(p, p + result.size()));
    }
  }
  std::uint64_t bytes = w.out.size();
  int rc = PMPI_Bcast(&bytes, 1, MPI_UINT64_T, from, comm);
  w.out.resize(bytes);
  if (rc == MPI_SUCCESS) rc = PMPI_Bcast(w.out.data(), static_cast<int>(bytes), MPI_BYTE, from, comm);
  if (rc != MPI_SUCCESS) return unavailable("handing over the collectives' results failed (MPI error " + std::to_string(rc) + ")");
  WordReader r(w.out.data(), w.out.size());
  std::vector<std::vector<std::byte>> lacking;
  for (std::uint64_t i = first; i < last; ++i) {
    std::vector<std::uint8_t> result;
    if (!r.blob(result)) return internalError("the handed-over collectives' results are cut short");
    if (i < mine) continue;
    const auto* p = reinterpret_cast<const std::byte*>(result.data());
    lacking.emplace_back(p, p + result.size());
  }
  return lacking;
}

// Every survivor's contributions to the gathers rooted at the lost rank in
// this epoch, to that rank's replacement (which gathers them again as it
// replays). Collective over the repaired `comm`.
Status handOverGatherContributions(MPI_Comm comm, int lost, RankReplay& replay) {
  WordWriter w;
  if (logging().log && rankIn(comm) != lost) {
    for (const MessageLog::GatherContribution& c : logging().log->gathersTo(lost)) {
      const auto* p = reinterpret_cast<const std::uint8_t*>(c.bytes.data());
      w.u64(c.collective);
      w.blob(std::vector<std::uint8_t>(p, p + c.bytes.size()));
    }
  }
  int size = 0;
  PMPI_Comm_size(comm, &size);
  int bytes = static_cast<int>(w.out.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  int rc = PMPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, lost, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displacements[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Gatherv(w.out.data(), bytes, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, lost,
                      comm);
  }
  if (rc != MPI_SUCCESS) return unavailable("handing over the gathers' contributions failed (MPI error " + std::to_string(rc) + ")");
  if (rankIn(comm) != lost) return {};
  for (int r = 0; r < size; ++r) {
    WordReader reader(all.data() + displacements[static_cast<std::size_t>(r)],
                      static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
    while (!reader.done()) {
      std::uint64_t index = 0;
      std::vector<std::uint8_t> contribution;
      if (!reader.u64(&index) || !reader.blob(contribution)) return internalError("a gather's contributions are cut short");
      auto& per_rank = replay.gathered[index];
      per_rank.resize(static_cast<std::size_t>(size));
      const auto* p = reinterpret_cast<const std::byte*>(contribution.data());
      per_rank[static_cast<std::size_t>(r)] = std::vector<std::byte>(p, p + contribution.size());
    }
  }
  return {};
}

}  // namespace

void LoggedMpi::onFailure(std::function<bool()> pending, std::function<bool()> repair) {
  g_failure_pending = std::move(pending);
  g_repair = std::move(repair);
}

void LoggedMpi::settleInterrupted(MPI_Comm repaired) {
  auto& state = logging();
  if (!state.log) return;
  const MPI_Comm old = state.comm.load();
  if (old != repaired) {
    state.retired.insert(old);
    state.comm.store(repaired);
  }
  for (LoggedRequest* ours : state.requests) {
    if (ours->finished) continue;
    if (ours->real != MPI_REQUEST_NULL) {
      int flag = 0;
      MPI_Status status{};
      const int rc = PMPI_Test(&ours->real, &flag, &status);
      if (flag && rc == MPI_SUCCESS) {
        ours->finished = true;
        ours->status = status;
        if (ours->receive) interposition::received(*state.log, ours->wildcard, status, ours->posted);
        continue;
      }
      if (ours->real != MPI_REQUEST_NULL) {
        (void)PMPI_Cancel(&ours->real);
        (void)PMPI_Request_free(&ours->real);
        ours->real = MPI_REQUEST_NULL;
      }
    }
  }
}

namespace {

// After a local plan: the requests settleInterrupted left unfinished go on,
// on the repaired communicator. (Under global rollback they stay void: a
// receive posted again would take a message of the re-executed epoch.)
void resumeInterrupted(MPI_Comm repaired) {
  for (LoggedRequest* ours : logging().requests) {
    if (ours->finished || ours->real != MPI_REQUEST_NULL) continue;
    if (ours->receive) {
      (void)PMPI_Irecv(ours->buf, ours->count, ours->type, ours->source, ours->tag, repaired, &ours->real);
    } else {
      ours->finished = true;
      ours->status = MPI_Status{};
      ours->status.MPI_SOURCE = MPI_PROC_NULL;
      ours->status.MPI_TAG = MPI_ANY_TAG;
    }
  }
}

}  // namespace

Result<RankReplay> LoggedMpi::carryOut(MPI_Comm comm, const LocalRecoveryPlan& plan,
                                       const std::vector<LogAccount>& accounts) {
  const int me = rankIn(comm);
  RankReplay replay = replayFor(plan, me);
  if (logging().log) {
    resumeInterrupted(comm);
    for (const Resend& r : plan.resends) {
      if (r.from != me) continue;
      for (std::span<const std::byte> payload : logging().log->sentAfter(r.channel, r.skip)) {
        MPI_Request request = MPI_REQUEST_NULL;
        // Packed as logged: a receive of any type matching the layout takes it.
        const int rc = PMPI_Isend(payload.data(), static_cast<int>(payload.size()), MPI_PACKED, r.channel.peer,
                                  r.channel.tag, comm, &request);
        if (rc != MPI_SUCCESS) return unavailable("resending to rank " + std::to_string(r.channel.peer) + " failed");
        g_replay.resends.push_back(request);
      }
    }
  }
  std::uint64_t fewest = plan.collectives;
  for (const LogAccount& a : accounts) fewest = std::min(fewest, a.restarted ? 0 : a.collectives);
  if (plan.collectives_from >= 0 && fewest < plan.collectives) {
    const std::uint64_t mine = accounts[static_cast<std::size_t>(me)].restarted ? 0 : accounts[me].collectives;
    auto lacking = handOverCollectives(comm, plan.collectives_from, fewest, plan.collectives, mine);
    if (!lacking) return lacking.status();
    replay.collectives = std::move(*lacking);
  }
  if (Status s = handOverGatherContributions(comm, plan.lost, replay); !s.ok()) return s;
  return replay;
}

void LoggedMpi::replay(RankReplay replay) {
  g_replay.skips = std::move(replay.skips);
  g_replay.collectives.assign(std::make_move_iterator(replay.collectives.begin()),
                              std::make_move_iterator(replay.collectives.end()));
  g_replay.collectives_taken = 0;
  g_replay.gathered = std::move(replay.gathered);
  // A wildcard MPI_Irecv's match is recorded when it completes but replayed
  // when it is posted: out of the order, looked up by its number.
  g_replay.determinants.clear();
  g_replay.posted_matches.clear();
  for (Determinant& d : replay.determinants) {
    if (d.kind == Determinant::Kind::kMatch && d.indices.size() == 1) {
      g_replay.posted_matches[d.indices.front()] = d.channel;
    } else {
      g_replay.determinants.push_back(std::move(d));
    }
  }
}

void LoggedMpi::atFirstSkip(std::function<void()> die) { g_at_first_skip = std::move(die); }

namespace interposition {

void forgetReplay() {
  finishResends();
  g_replay = Replay{};
}

bool failurePending() { return g_failure_pending && g_failure_pending(); }

bool recoveredLocally(int rc, const char* call, bool resumable) {
  if (rc == MPI_SUCCESS || !failurePending() || !g_repair) return false;
  if (!resumable) {
    LoggedMpi::spoil(std::string("a process failure interrupted ") + call +
                     ", which local recovery does not resume");
  }
  LoggedMpi::RuntimeCall in_runtime;
  return g_repair();
}

bool skipSend(Channel channel) {
  auto it = g_replay.skips.find(channel);
  if (it == g_replay.skips.end() || it->second == 0) return false;
  if (g_at_first_skip) std::exchange(g_at_first_skip, nullptr)();
  --it->second;
  return true;
}

std::optional<std::span<const std::byte>> replayedCollective() {
  static std::vector<std::byte> current;  // valid until the next call
  if (g_replay.collectives.empty()) return std::nullopt;
  current = std::move(g_replay.collectives.front());
  g_replay.collectives.pop_front();
  ++g_replay.collectives_taken;
  return std::span<const std::byte>(current);
}

bool collectiveDue() { return !g_replay.collectives.empty(); }

std::vector<std::optional<std::vector<std::byte>>> replayedGather() {
  auto it = g_replay.gathered.find(g_replay.collectives_taken - 1);
  if (it == g_replay.gathered.end()) return {};
  auto contributions = std::move(it->second);
  g_replay.gathered.erase(it);
  return contributions;
}

void cannotReplay(const char* what) {
  std::fprintf(stderr,
               "ftbckpt: rank %d: %s cannot be replayed after a local recovery as its predecessor ran it, so the "
               "run cannot go on correctly\n",
               rankIn(logging().comm.load()), what);
  PMPI_Abort(logging().comm.load(), 1);
  _exit(1);
}

std::optional<Channel> replayedMatch(const char* call) {
  if (g_replay.determinants.empty()) return std::nullopt;
  Determinant& next = g_replay.determinants.front();
  if (next.kind != Determinant::Kind::kMatch) cannotReplay(call);
  const Channel channel = next.channel;
  g_replay.determinants.pop_front();
  return channel;
}

std::optional<std::vector<int>> replayedCompletion(const char* call) {
  if (g_replay.determinants.empty()) return std::nullopt;
  Determinant next = std::move(g_replay.determinants.front());
  if (next.kind != Determinant::Kind::kCompletion) cannotReplay(call);
  g_replay.determinants.pop_front();
  return std::move(next.indices);
}

// Not found: the first one had not completed when it was lost. Posted as a
// wildcard again, it cannot take a message another receive took the first
// time: any message matching it went to it, as the earlier posted receive.
std::optional<Channel> replayedPostedMatch(int posted) {
  auto it = g_replay.posted_matches.find(posted);
  if (it == g_replay.posted_matches.end()) return std::nullopt;
  const Channel channel = it->second;
  g_replay.posted_matches.erase(it);
  return channel;
}

bool determinantsDue() { return !g_replay.determinants.empty(); }

std::optional<ReplayedProbe> replayedProbe() {
  if (g_replay.determinants.empty()) return std::nullopt;
  Determinant next = std::move(g_replay.determinants.front());
  g_replay.determinants.pop_front();
  if (next.kind == Determinant::Kind::kMatch) return ReplayedProbe{true, next.channel};
  if (!next.indices.empty()) cannotReplay("MPI_Iprobe");
  return ReplayedProbe{false, {}};
}

}  // namespace interposition
}  // namespace ftb::mpi_bridge
