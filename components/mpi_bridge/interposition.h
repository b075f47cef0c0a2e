// What the MPI_* definitions of logged_mpi.h share (logged_p2p.cc,
// logged_requests.cc, logged_collectives.cc, uncovered_calls.cc): whether a
// call is logged, the requests they hand out, packing into the log. Internal
// to those files and logged_mpi.cc. MPI thread only, as logged_mpi.h says.
#pragma once

#include <mpi.h>

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "components/mpi_bridge/determinant_store.h"
#include "components/mpi_bridge/message_log.h"

namespace ftb::mpi_bridge::interposition {

// A request of a logged call: the real one, and what finishing it must log.
struct LoggedRequest {
  MPI_Request real = MPI_REQUEST_NULL;
  bool receive = false;
  bool wildcard = false;  // a receive from MPI_ANY_SOURCE or with MPI_ANY_TAG
  int posted = -1;        // a wildcard one's number in its epoch (MessageLog::postWildcardReceive)
  // A receive's arguments, to post it again on a repaired communicator.
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int source = 0;
  int tag = 0;
  // A recovery finds it unfinished (a process failure's error ended its real
  // request, or none came yet): a receive is posted again on the repaired
  // communicator, a send finished (its message is resent if need be).
  // Finished by a recovery, not by a request call: the next one reports `status`.
  bool finished = false;
  MPI_Status status{};
};

// What start() set up (logged_mpi.cc), and what a recovery works on
// (local_replay.cc). `comm` is read by every thread's MPI calls, hence
// atomic; the rest only on the MPI thread.
struct Logging {
  std::atomic<MPI_Comm> comm{MPI_COMM_NULL};
  pthread_t thread{};
  std::unique_ptr<MessageLog> log;
  std::unordered_set<LoggedRequest*> requests;  // live handles handed out
  std::unordered_set<MPI_Comm> derived;         // from the logged communicator, by the application
  std::unordered_set<MPI_Comm> retired;         // its handles before local recoveries replaced it
  std::optional<DeterminantStore> store;        // the determinants, in node memory
};
Logging& logging();
// A new epoch's replay state: none (start(), stop()).
void forgetReplay();

// Our handles are pointers to LoggedRequest, told apart from Open MPI's by a
// table of the live ones: an MPI whose handles are not pointers needs another way.
static_assert(std::is_pointer_v<MPI_Request>, "logged requests are handed out as pointers");

// The log of the current epoch if `call` on `comm` is to be logged, else
// nullptr. A call on a communicator derived from the logged one cannot be
// replayed: it spoils the epoch (and is not logged). A communicator that a
// local recovery replaced is the logged one's old handle: `comm` becomes the
// repaired one.
MessageLog* logFor(MPI_Comm& comm, const char* call);
// The log if calls of this thread are logged at all (request calls name no communicator).
MessageLog* logForThisThread();

// Ours, or nullptr for Open MPI's own (or MPI_REQUEST_NULL).
LoggedRequest* logged(MPI_Request request);
MPI_Request handOut(LoggedRequest request);
void forget(LoggedRequest* request);

// A nondeterministic outcome: in the log, and in the node's store before the
// call that had it returns (a full store spoils the epoch).
void record(MessageLog& log, Determinant determinant);

// A receive completed with `status` (its MPI_ERROR is not read): counted on
// its channel, and its match recorded if the receive was a wildcard one.
// `posted`: a wildcard MPI_Irecv's number, recorded with its match.
void received(MessageLog& log, bool wildcard, const MPI_Status& status, int posted = -1);

// Packs `count` x `type` from `buf` into `room`, which `bytes(count, type)` sized.
int packedBytes(int count, MPI_Datatype type);
void pack(const void* buf, int count, MPI_Datatype type, std::byte* room, int bytes);
// Unpacks what pack() made; false if `packed` is not `count` x `type`.
bool unpack(std::span<const std::byte> packed, void* buf, int count, MPI_Datatype type);

// An uncovered call on the logged communicator (or one derived from it): the
// epoch can no longer be replayed.
void uncovered(MPI_Comm comm, const char* call);
// A communicator made from `parent` by `call` (split, dup, create): if the
// parent is logged or derived, so is `made`: its traffic spoils the epoch it
// happens in. Its creation is uncovered (a collective the log cannot replay).
void derived(MPI_Comm parent, MPI_Comm made, const char* call);
void freed(MPI_Comm comm);

// After a logged call returned `rc`: when a process failure made it fail, the
// job is repaired (LoggedMpi::onFailure). True when the recovery was local:
// the caller carries on, on the repaired communicator (logFor gives it), its
// interrupted requests posted again or finished (LoggedMpi::settleInterrupted).
// False: `rc` is the call's answer; a failure the call cannot carry on from
// (`resumable` false) spoils the epoch first, so the recovery is global.
bool recoveredLocally(int rc, const char* call, bool resumable = true);
// A process failure is known: a failed call's error is the failure's.
bool failurePending();

// Replay, after a local recovery, by a replacement (or a survivor a failure
// interrupted inside a collective):
// true when this send on `channel` was received before the failure: it is
// logged, not sent again.
bool skipSend(Channel channel);
// The next collective result handed over by a survivor, if one is due.
std::optional<std::span<const std::byte>> replayedCollective();
bool collectiveDue();
// After replayedCollective() gave a gather this rank is the root of: each
// survivor's contribution to it, per rank (none: not handed over).
std::vector<std::optional<std::vector<std::byte>>> replayedGather();
// `what` cannot be replayed here: the run ends with that error (never a wrong answer).
[[noreturn]] void cannotReplay(const char* what);
// The channel a replayed wildcard receive or probe (`call`) matched the first
// time, if one is to be replayed (another kind next ends the run, as above).
std::optional<Channel> replayedMatch(const char* call);
// The channel wildcard MPI_Irecv number `posted` of the epoch matched the
// first time, if its predecessor's completed (kept apart from the ordered
// determinants: the replacement posts it on that channel before any receive
// posted after it).
std::optional<Channel> replayedPostedMatch(int posted);
// Whether a replayed MPI_Iprobe found something: nullopt when none is replayed.
struct ReplayedProbe {
  bool found = false;
  Channel channel;
};
std::optional<ReplayedProbe> replayedProbe();
// Which of its requests a replayed Waitany, Waitsome, Test* or
// Request_get_status (`call`) found complete the first time (indices into its
// array; empty: none), if one is to be replayed (another kind next ends the run).
std::optional<std::vector<int>> replayedCompletion(const char* call);
// Whether any of the predecessor's determinants is still to be replayed.
bool determinantsDue();

}  // namespace ftb::mpi_bridge::interposition
