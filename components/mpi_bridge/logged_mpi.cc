#include "components/mpi_bridge/logged_mpi.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "components/mpi_bridge/interposition.h"

namespace ftb::mpi_bridge {
namespace {

using interposition::LoggedRequest;

interposition::Logging g_logging;
// Room for determinants in node memory (faulted in when made): 4 MiB holds
// about 250,000; past it the epoch cannot be replayed.
constexpr std::size_t kStoreBytes = std::size_t{4} << 20;
thread_local int t_runtime_calls = 0;

}  // namespace

void LoggedMpi::start(MPI_Comm comm, std::size_t bound_bytes, std::int64_t line, const std::string& store_name) {
  stop();
  g_logging.retired.clear();
  g_logging.thread = pthread_self();
  g_logging.log = std::make_unique<MessageLog>(bound_bytes);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  g_logging.log->keepCollectiveResults(keepsCollectiveResults(rank));
  g_logging.log->startEpoch(line);
  if (!g_logging.store || g_logging.store->name() != store_name) {
    g_logging.store.reset();
    auto created = DeterminantStore::create(store_name, std::min(bound_bytes, kStoreBytes));
    if (created) {
      g_logging.store.emplace(std::move(*created));
    } else {
      g_logging.log->spoil("no determinant store: " + created.status().message());
    }
  }
  if (g_logging.store) g_logging.store->startEpoch(line);
  g_logging.comm.store(comm);
}

void LoggedMpi::removeStore() {
  if (!g_logging.store) return;
  ShmSegment::remove(g_logging.store->name());
  g_logging.store.reset();
}

void LoggedMpi::stop() {
  g_logging.comm.store(MPI_COMM_NULL);
  // Handles the application still holds stay valid (their requests are only
  // forgotten by the table): they are Open MPI's business no more.
  g_logging.requests.clear();
  g_logging.derived.clear();
  g_logging.log.reset();
  interposition::forgetReplay();
}

bool LoggedMpi::started() { return g_logging.comm.load() != MPI_COMM_NULL; }

const MessageLog& LoggedMpi::log() { return *g_logging.log; }

void LoggedMpi::spoil(std::string why) {
  if (g_logging.log) g_logging.log->spoil(std::move(why));
}

Status LoggedMpi::checkpointLine(std::int64_t line) {
  const MPI_Comm comm = g_logging.comm.load();
  if (comm == MPI_COMM_NULL) return failedPrecondition("local rollback's log is not started");
  MessageLog& log = *g_logging.log;
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  std::vector<std::uint64_t> sent(size), sent_to_me(size);
  for (int peer = 0; peer < size; ++peer) sent[peer] = log.sentTo(peer);
  const int rc = PMPI_Alltoall(sent.data(), 1, MPI_UINT64_T, sent_to_me.data(), 1, MPI_UINT64_T, comm);
  if (rc != MPI_SUCCESS) return unavailable("the checkpoint line's message count failed (MPI error " + std::to_string(rc) + ")");
  std::string crossed;
  for (int peer = 0; peer < size && crossed.empty(); ++peer) {
    if (sent_to_me[peer] != log.receivedFrom(peer)) {
      crossed = "a message from rank " + std::to_string(peer) + " to rank " + std::to_string(rank) +
                " crossed checkpoint line " + std::to_string(line) + " (sent " + std::to_string(sent_to_me[peer]) +
                ", received " + std::to_string(log.receivedFrom(peer)) + " before it)";
    }
  }
  interposition::forgetReplay();  // caught up by now: every rank reached the line
  log.startEpoch(line);
  if (g_logging.store) g_logging.store->startEpoch(line);
  if (!crossed.empty()) log.spoil(crossed);
  return {};
}

Result<std::vector<LogAccount>> LoggedMpi::accounts(MPI_Comm comm, const std::optional<LogAccount>& restarted) {
  LogAccount mine = restarted ? *restarted : g_logging.log ? accountOf(*g_logging.log) : LogAccount{};
  if (!restarted && !g_logging.log) {
    mine.replayable = false;
    mine.why_not = "its traffic was not logged";
  }
  const std::vector<std::uint8_t> record = encodeAccount(mine);
  int size = 0;
  PMPI_Comm_size(comm, &size);
  const int bytes = static_cast<int>(record.size());
  std::vector<int> sizes(size), offsets(size);
  int rc = PMPI_Allgather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[r] = total;
    total += sizes[r];
  }
  std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
  if (rc == MPI_SUCCESS) {
    rc = PMPI_Allgatherv(record.data(), bytes, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, comm);
  }
  if (rc != MPI_SUCCESS) return unavailable("exchanging the message logs' accounts failed (MPI error " + std::to_string(rc) + ")");
  std::vector<LogAccount> accounts;
  for (int r = 0; r < size; ++r) {
    auto account = decodeAccount(std::vector<std::uint8_t>(all.begin() + offsets[r], all.begin() + offsets[r] + sizes[r]));
    if (!account) return invalidArgument("rank " + std::to_string(r) + "'s account: " + account.status().message());
    accounts.push_back(std::move(*account));
  }
  return accounts;
}

int LoggedMpi::applicationBcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const int saved = t_runtime_calls;
  t_runtime_calls = 0;
  const int rc = MPI_Bcast(buf, count, type, root, comm);
  t_runtime_calls = saved;
  return rc;
}

LoggedMpi::RuntimeCall::RuntimeCall() { ++t_runtime_calls; }
LoggedMpi::RuntimeCall::~RuntimeCall() { --t_runtime_calls; }

namespace interposition {

Logging& logging() { return g_logging; }

MessageLog* logForThisThread() {
  if (g_logging.comm.load(std::memory_order_relaxed) == MPI_COMM_NULL || t_runtime_calls > 0 ||
      !pthread_equal(pthread_self(), g_logging.thread)) {
    return nullptr;
  }
  return g_logging.log.get();
}

MessageLog* logFor(MPI_Comm& comm, const char* call) {
  if (comm == MPI_COMM_NULL) return nullptr;
  const MPI_Comm logged_comm = g_logging.comm.load(std::memory_order_relaxed);
  if (comm == logged_comm) return logForThisThread();
  if (!g_logging.retired.empty() && g_logging.retired.count(comm) && logForThisThread()) {
    comm = logged_comm;
    return logForThisThread();
  }
  MessageLog* log = g_logging.derived.empty() ? nullptr : logForThisThread();
  if (log && g_logging.derived.count(comm)) {
    log->spoil(std::string(call) + " on a communicator derived from the logged one (its traffic is not logged)");
  }
  return nullptr;
}

LoggedRequest* logged(MPI_Request request) {
  if (request == MPI_REQUEST_NULL || g_logging.requests.empty()) return nullptr;
  auto* candidate = reinterpret_cast<LoggedRequest*>(request);
  return g_logging.requests.count(candidate) ? candidate : nullptr;
}

MPI_Request handOut(LoggedRequest request) {
  auto* owned = new LoggedRequest(request);
  g_logging.requests.insert(owned);
  return reinterpret_cast<MPI_Request>(owned);
}

void forget(LoggedRequest* request) {
  g_logging.requests.erase(request);
  delete request;
}

void received(MessageLog& log, bool wildcard, const MPI_Status& status, int posted) {
  if (status.MPI_SOURCE == MPI_PROC_NULL) return;
  const Channel channel{status.MPI_SOURCE, status.MPI_TAG};
  log.received(channel);
  if (wildcard) record(log, {Determinant::Kind::kMatch, channel, posted >= 0 ? std::vector<int>{posted} : std::vector<int>{}});
}

int packedBytes(int count, MPI_Datatype type) {
  int bytes = 0;
  PMPI_Pack_size(count, type, g_logging.comm.load(std::memory_order_relaxed), &bytes);
  return bytes;
}

void pack(const void* buf, int count, MPI_Datatype type, std::byte* room, int bytes) {
  int position = 0;
  PMPI_Pack(buf, count, type, room, bytes, &position, g_logging.comm.load(std::memory_order_relaxed));
}

void record(MessageLog& log, Determinant determinant) {
  if (g_logging.store && log.replayable() && !g_logging.store->append(determinant)) {
    log.spoil("the determinant store of " + std::to_string(g_logging.store->bytes() >> 20) + " MiB is full");
  }
  log.record(std::move(determinant));
}

bool unpack(std::span<const std::byte> packed, void* buf, int count, MPI_Datatype type) {
  if (static_cast<int>(packed.size()) != packedBytes(count, type)) return false;
  int position = 0;
  return PMPI_Unpack(packed.data(), static_cast<int>(packed.size()), &position, buf, count, type,
                     g_logging.comm.load(std::memory_order_relaxed)) == MPI_SUCCESS;
}

void uncovered(MPI_Comm comm, const char* call) {
  if (MessageLog* log = logFor(comm, call)) {
    log->spoil(std::string(call) + " on the logged communicator (not covered by local rollback's log)");
  }
}

void derived(MPI_Comm parent, MPI_Comm made, const char* call) {
  MessageLog* log = logForThisThread();
  if (!log || made == MPI_COMM_NULL) return;
  if (parent != g_logging.comm.load(std::memory_order_relaxed) && !g_logging.derived.count(parent)) return;
  log->spoil(std::string(call) + " made a communicator from the logged one (its traffic is not logged)");
  g_logging.derived.insert(made);
}

void freed(MPI_Comm comm) {
  if (logForThisThread()) g_logging.derived.erase(comm);
}

}  // namespace interposition
}  // namespace ftb::mpi_bridge
