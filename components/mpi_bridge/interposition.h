// What the MPI_* definitions of logged_mpi.h share (logged_p2p.cc,
// logged_requests.cc, logged_collectives.cc, uncovered_calls.cc): whether a
// call is logged, the requests they hand out, packing into the log. Internal
// to those files and logged_mpi.cc. MPI thread only, as logged_mpi.h says.
#pragma once

#include <mpi.h>

#include <type_traits>

#include "components/mpi_bridge/message_log.h"

namespace ftb::mpi_bridge::interposition {

// A request of a logged call: the real one, and what finishing it must log.
struct LoggedRequest {
  MPI_Request real = MPI_REQUEST_NULL;
  bool receive = false;
  bool wildcard = false;  // a receive from MPI_ANY_SOURCE or with MPI_ANY_TAG
};

// Our handles are pointers to LoggedRequest, told apart from Open MPI's by a
// table of the live ones: an MPI whose handles are not pointers needs another way.
static_assert(std::is_pointer_v<MPI_Request>, "logged requests are handed out as pointers");

// The log of the current epoch if `call` on `comm` is to be logged, else
// nullptr. A call on a communicator derived from the logged one cannot be
// replayed: it spoils the epoch (and is not logged).
MessageLog* logFor(MPI_Comm comm, const char* call);
// The log if calls of this thread are logged at all (request calls name no communicator).
MessageLog* logForThisThread();

// Ours, or nullptr for Open MPI's own (or MPI_REQUEST_NULL).
LoggedRequest* logged(MPI_Request request);
MPI_Request handOut(LoggedRequest request);
void forget(LoggedRequest* request);

// A receive completed with `status` (its MPI_ERROR is not read): counted on
// its channel, and its match recorded if the receive was a wildcard one.
void received(MessageLog& log, bool wildcard, const MPI_Status& status);

// Packs `count` x `type` from `buf` into `room`, which `bytes(count, type)` sized.
int packedBytes(int count, MPI_Datatype type);
void pack(const void* buf, int count, MPI_Datatype type, std::byte* room, int bytes);

// An uncovered call on the logged communicator (or one derived from it): the
// epoch can no longer be replayed.
void uncovered(MPI_Comm comm, const char* call);
// A communicator made from `parent` by `call` (split, dup, create): if the
// parent is logged or derived, so is `made`: its traffic spoils the epoch it
// happens in. Its creation is uncovered (a collective the log cannot replay).
void derived(MPI_Comm parent, MPI_Comm made, const char* call);
void freed(MPI_Comm comm);

}  // namespace ftb::mpi_bridge::interposition
