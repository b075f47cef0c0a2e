// The point-to-point calls of logged_mpi.h: a send is logged at the sender
// (packed before a blocking send leaves, while a nonblocking one runs), a
// receive counted on its channel when it completes, a wildcard match or a
// probe's answer recorded as a determinant. A process failure inside one is
// repaired there (recoveredLocally): after a local recovery the call carries
// on, on the repaired communicator.
#include "components/mpi_bridge/interposition.h"

using ftb::mpi_bridge::Channel;
using ftb::mpi_bridge::Determinant;
using ftb::mpi_bridge::MessageLog;
using ftb::mpi_bridge::interposition::handOut;
using ftb::mpi_bridge::interposition::logFor;
using ftb::mpi_bridge::interposition::LoggedRequest;

namespace {

using ftb::mpi_bridge::interposition::failurePending;
using ftb::mpi_bridge::interposition::logging;
using ftb::mpi_bridge::interposition::recoveredLocally;
using ftb::mpi_bridge::interposition::replayedMatch;
using ftb::mpi_bridge::interposition::skipSend;

void logSend(MessageLog& log, const void* buf, int count, MPI_Datatype type, int dest, int tag) {
  const int bytes = ftb::mpi_bridge::interposition::packedBytes(count, type);
  if (std::byte* room = log.appendSent({dest, tag}, static_cast<std::size_t>(bytes))) {
    ftb::mpi_bridge::interposition::pack(buf, count, type, room, bytes);
  }
}

bool wildcard(int source, int tag) { return source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG; }

// The logged communicator now (a local recovery replaces it).
MPI_Comm current() { return logging().comm.load(); }

MPI_Status nothingReceived() {
  MPI_Status status{};
  status.MPI_SOURCE = MPI_PROC_NULL;
  status.MPI_TAG = MPI_ANY_TAG;
  return status;
}

// A blocking send: logged first, so a failure while it runs finds it in the
// log; after a local recovery it is done (resent if its receiver lacks it).
// A replay skips the ones the receiver had.
template <typename Send>
int loggedSend(const char* call, Send send, const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm) {
  MessageLog* log = logFor(comm, call);
  if (!log || dest == MPI_PROC_NULL) return send(buf, count, type, dest, tag, comm);
  logSend(*log, buf, count, type, dest, tag);
  if (skipSend({dest, tag})) return MPI_SUCCESS;
  const int rc = send(buf, count, type, dest, tag, comm);
  return recoveredLocally(rc, call) ? MPI_SUCCESS : rc;
}

// A nonblocking send: posted, then copied into the log while it runs.
template <typename Isend>
int loggedIsend(const char* call, Isend isend, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  MessageLog* log = logFor(comm, call);
  if (!log || dest == MPI_PROC_NULL) return isend(buf, count, type, dest, tag, comm, request);
  LoggedRequest ours;
  if (skipSend({dest, tag})) {
    logSend(*log, buf, count, type, dest, tag);
    ours.finished = true;
    ours.status = nothingReceived();
    *request = handOut(ours);
    return MPI_SUCCESS;
  }
  const int rc = isend(buf, count, type, dest, tag, comm, &ours.real);
  if (rc != MPI_SUCCESS && !failurePending()) return rc;
  logSend(*log, buf, count, type, dest, tag);  // if the post failed, a local recovery resends it
  if (rc != MPI_SUCCESS) {
    if (!recoveredLocally(rc, call)) return rc;
    ours.real = MPI_REQUEST_NULL;
    ours.finished = true;
    ours.status = nothingReceived();
  }
  *request = handOut(ours);
  return MPI_SUCCESS;
}

// A blocking receive, posted again on the repaired communicator after a
// local recovery. A wildcard one that a replacement replays takes the
// channel its predecessor's matched.
int loggedRecv(MessageLog& log, void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Status* st) {
  const bool any = wildcard(source, tag);
  if (any) {
    if (auto match = replayedMatch("a wildcard MPI_Recv")) {
      source = match->peer;
      tag = match->tag;
    }
  }
  for (;;) {
    const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    if (rc == MPI_SUCCESS) ftb::mpi_bridge::interposition::received(log, any, *st);
    if (rc == MPI_SUCCESS || !recoveredLocally(rc, "MPI_Recv")) return rc;
    comm = current();
  }
}

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return loggedSend("MPI_Send", PMPI_Send, buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return loggedSend("MPI_Ssend", PMPI_Ssend, buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return loggedIsend("MPI_Isend", PMPI_Isend, buf, count, type, dest, tag, comm, request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return loggedIsend("MPI_Issend", PMPI_Issend, buf, count, type, dest, tag, comm, request);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  MessageLog* log = logFor(comm, "MPI_Recv");
  if (!log || source == MPI_PROC_NULL) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status local;
  return loggedRecv(*log, buf, count, type, source, tag, comm, status == MPI_STATUS_IGNORE ? &local : status);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  MessageLog* log = logFor(comm, "MPI_Irecv");
  if (!log || source == MPI_PROC_NULL) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  LoggedRequest ours{.receive = true, .wildcard = wildcard(source, tag), .buf = buf, .count = count, .type = type,
                     .source = source, .tag = tag};
  if (ours.wildcard) {
    ours.posted = log->postWildcardReceive();
    // A replacement posts it on the channel its predecessor's matched.
    if (auto match = ftb::mpi_bridge::interposition::replayedPostedMatch(ours.posted)) {
      source = match->peer;
      tag = match->tag;
    }
  }
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &ours.real);
  if (rc != MPI_SUCCESS && recoveredLocally(rc, "MPI_Irecv")) {
    rc = PMPI_Irecv(buf, count, type, source, tag, current(), &ours.real);
  }
  if (rc == MPI_SUCCESS) *request = handOut(ours);
  return rc;
}

// The send is logged (and skipped in a replay) as MPI_Send's; after a local
// recovery only the receive is done again.
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  MessageLog* log = logFor(comm, "MPI_Sendrecv");
  if (!log) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  }
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  bool skipped = false;
  if (dest != MPI_PROC_NULL) {
    logSend(*log, sendbuf, sendcount, sendtype, dest, sendtag);
    skipped = skipSend({dest, sendtag});
  }
  // A replayed wildcard receive takes its recorded channel: the send alone
  // first, then the receive as MPI_Recv's.
  if (!skipped && source != MPI_PROC_NULL && wildcard(source, recvtag) &&
      ftb::mpi_bridge::interposition::determinantsDue()) {
    const int rc = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (rc != MPI_SUCCESS && !recoveredLocally(rc, "MPI_Sendrecv")) return rc;
    skipped = true;
    comm = current();
  }
  if (!skipped) {
    const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                                 recvtag, comm, st);
    if (rc == MPI_SUCCESS) {
      if (source != MPI_PROC_NULL) ftb::mpi_bridge::interposition::received(*log, wildcard(source, recvtag), *st);
      return rc;
    }
    if (!recoveredLocally(rc, "MPI_Sendrecv")) return rc;
    comm = current();
  }
  if (source == MPI_PROC_NULL) {
    *st = nothingReceived();
    return MPI_SUCCESS;
  }
  return loggedRecv(*log, recvbuf, recvcount, recvtype, source, recvtag, comm, st);
}

// Which message a wildcard probe found decides what the program does next.
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  MessageLog* log = logFor(comm, "MPI_Probe");
  if (!log || !wildcard(source, tag)) return PMPI_Probe(source, tag, comm, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  if (auto match = replayedMatch("a wildcard MPI_Probe")) {
    source = match->peer;
    tag = match->tag;
  }
  int rc = PMPI_Probe(source, tag, comm, st);
  if (rc != MPI_SUCCESS && recoveredLocally(rc, "MPI_Probe")) rc = PMPI_Probe(source, tag, current(), st);
  if (rc == MPI_SUCCESS) ftb::mpi_bridge::interposition::record(*log, {Determinant::Kind::kMatch, Channel{st->MPI_SOURCE, st->MPI_TAG}, {}});
  return rc;
}

// Whether anything had arrived is itself an outcome to replay.
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  MessageLog* log = logFor(comm, "MPI_Iprobe");
  if (!log || source == MPI_PROC_NULL) return PMPI_Iprobe(source, tag, comm, flag, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = MPI_SUCCESS;
  if (auto replayed = ftb::mpi_bridge::interposition::replayedProbe()) {
    // What it found the first time: that message, waited for; or nothing.
    *flag = replayed->found;
    if (replayed->found) rc = PMPI_Probe(replayed->channel.peer, replayed->channel.tag, comm, st);
  } else {
    rc = PMPI_Iprobe(source, tag, comm, flag, st);
  }
  if (rc != MPI_SUCCESS && recoveredLocally(rc, "MPI_Iprobe")) rc = PMPI_Iprobe(source, tag, current(), flag, st);
  if (rc != MPI_SUCCESS) return rc;
  if (*flag) {
    ftb::mpi_bridge::interposition::record(*log, {Determinant::Kind::kMatch, Channel{st->MPI_SOURCE, st->MPI_TAG}, {}});
  } else {
    ftb::mpi_bridge::interposition::record(*log, {Determinant::Kind::kCompletion, {}, {}});
  }
  return rc;
}

}  // extern "C"
