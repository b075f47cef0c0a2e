// The runtime's link to the ftb backplane (docs/RECOVERY_EVENTS.md): a client
// in FTB.MPI.FTBCKPT per rank, subscribed to the launcher's requests in
// FTB.JL.<job>, to its peers' last wills and to its launcher's node states
// (FTB.NLA.<job>). Requests arrive on the SDK thread and are queued; the MPI
// thread takes them at its next loop call, acts collectively, and answers each
// with respond(). Wills and node states go to their listeners on the SDK
// thread at once (peer_deaths.h, replacement_placement.h).
//
// Without an agent the bridge is simply not connected: the application runs
// and checkpoints, and every call here does nothing.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "components/mpi_bridge/config.h"
#include "components/mpi_bridge/peer_deaths.h"
#include "components/mpi_bridge/replacement_placement.h"
#include "components/mpi_bridge/schedule.h"

namespace ftb::mpi_bridge {

inline constexpr std::string_view kRuntimeSpace = "FTB.MPI.FTBCKPT";
inline constexpr std::string_view kProcsDeadEvent = "FTB_MPI_PROCS_DEAD";

// kFailures is not a request to act: the launcher's live update of the job's
// failure history (FTB_FAILURES), for the "auto" schedule's rates.
// kTerminate: the launcher ends this process (SIGKILL) to replace it; never queued.
enum class RequestKind { kCheckpoint, kMigrate, kStop, kFailures, kTerminate };

struct Request {
  RequestKind kind = RequestKind::kCheckpoint;
  std::string corr;
  std::optional<Level> level;  // none = the configured level ("auto" or no tag)
  bool level_tag = false;      // kStop checkpoints only if the request has a level tag
  std::string source;          // kMigrate
  FailureHistory failures;     // kFailures: the job's totals so far
  int rank = -1;               // kTerminate: the rank to end
  long pid = 0;                // kTerminate: its process (0 = whichever holds the rank)
  Event event;                 // what respond() answers
};

// What the bridge tells the runtime as it hears it, on the SDK thread. Each may
// be null; each must outlive the bridge.
struct BridgeListeners {
  PeerDeaths* deaths = nullptr;  // the last wills of this job's other ranks, and lost nodes
  NodeStates* nodes = nullptr;   // FTB_NLA_STATE of the job's launcher, the newest replayed at connect
};

class Bridge {
 public:
  // Never fails: without an agent, connected() is false and error() says why.
  Bridge(const Config& config, int rank, std::string node, BridgeListeners listeners = {});
  ~Bridge();

  bool connected() const { return client_ != nullptr; }
  const std::string& error() const { return error_; }

  // Requests received since the last call, in arrival order (MPI thread).
  std::vector<Request> take();

  // Text "<text> key=value ..." built from the tags; errors are counted, not thrown.
  void respond(const Request& request, std::string_view event_name, const Tags& tags, std::string_view text);
  void publish(std::string_view event_name, const Tags& tags, std::string_view text);
  uint64_t failures() const { return failures_.load(); }

 private:
  void onNotification(const Notification& n);
  void onPeerWill(const Event& will);
  void onNodeLost(const Event& lost);
  void terminate(const Request& request);

  std::unique_ptr<Client> client_;
  std::string error_;
  std::mutex mu_;
  std::deque<Request> queue_;
  std::atomic<uint64_t> failures_{0};  // publish() runs on the MPI and hang watch threads
  int rank_;
  std::string node_;
  std::string attempt_;  // FTB_RESTART_ATTEMPT: wills of other attempts are not ours
  std::string job_id_;
  BridgeListeners listeners_;
};

// Every rank's last will: FTB_MPI_PROCS_DEAD (FATAL) with tags job, rank,
// host = node = the rank's node, pid, and attempt (FTB_RESTART_ATTEMPT) when known.
// The bridge disconnects in finalize(), so only a rank that dies (or exits
// without finalize) has it published.
LastWill procsDeadWill(const std::string& job_id, int rank, const std::string& node, const std::string& attempt,
                       long pid);

// Parses a launcher request; kInvalidArgument names the bad tag, kNotFound for
// events that are not requests to us (FTB_JOB_STATE, FTB_DECISION, ...).
Result<Request> parseRequest(const Event& event);

}  // namespace ftb::mpi_bridge
