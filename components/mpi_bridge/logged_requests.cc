// The request calls of logged_mpi.h. Our handles stand for a real request;
// each call works on the real ones, then settles ours: a finished receive is
// counted on its channel (and its match recorded if it was a wildcard), a
// finished handle is forgotten and set to MPI_REQUEST_NULL. Which requests a
// Waitany, Waitsome or Test* found complete is recorded as a determinant.
// Arrays without any handle of ours go straight to PMPI.
//
// A replacement replaying its predecessor's epoch (local rollback) does not
// ask MPI which requests are complete: it waits for exactly those its
// predecessor's call found complete (the determinant), and answers as it did.
//
// A process failure inside MPI_Wait or MPI_Waitall is repaired there: the
// requests it interrupted stay ours, a local recovery posts them again (or
// finishes them, LoggedMpi::settleInterrupted), and the call waits on. The
// other calls cannot resume (what they found complete would be an outcome
// the failure decided): their epoch falls back to global rollback.
#include <algorithm>
#include <vector>

#include "components/mpi_bridge/interposition.h"

using ftb::mpi_bridge::Determinant;
using ftb::mpi_bridge::MessageLog;
using ftb::mpi_bridge::interposition::forget;
using ftb::mpi_bridge::interposition::logForThisThread;
using ftb::mpi_bridge::interposition::logged;
using ftb::mpi_bridge::interposition::LoggedRequest;
using ftb::mpi_bridge::interposition::failurePending;
using ftb::mpi_bridge::interposition::recoveredLocally;
using ftb::mpi_bridge::interposition::replayedCompletion;

namespace {

// The log, if any of `requests` is ours and this thread's calls are logged.
MessageLog* logForAny(int count, const MPI_Request* requests) {
  MessageLog* log = logForThisThread();
  if (!log) return nullptr;
  for (int i = 0; i < count; ++i) {
    if (logged(requests[i])) return log;
  }
  return nullptr;
}

std::vector<MPI_Request> realOf(int count, const MPI_Request* requests) {
  std::vector<MPI_Request> real(requests, requests + count);
  for (auto& r : real) {
    if (LoggedRequest* ours = logged(r)) r = ours->real;
  }
  return real;
}

// `*handle`'s real request is now `real` (MPI_REQUEST_NULL once it finished,
// `succeeded` or not, with `status`). One a recovery finished reports the
// status it kept. `keep`: a process failure's error ended it, and a recovery
// will post it again: it stays ours.
void settle(MessageLog& log, MPI_Request* handle, MPI_Request real, bool succeeded, MPI_Status& status,
            bool keep = false) {
  LoggedRequest* ours = logged(*handle);
  if (!ours) {
    *handle = real;
    return;
  }
  ours->real = real;
  if (real != MPI_REQUEST_NULL) return;
  if (ours->finished) {
    status = ours->status;
  } else if (!succeeded && keep) {
    return;
  } else if (ours->receive && succeeded) {
    ftb::mpi_bridge::interposition::received(log, ours->wildcard, status, ours->posted);
  }
  forget(ours);
  *handle = MPI_REQUEST_NULL;
}

// A call that cannot resume met a process failure: its epoch cannot be replayed.
void spoilIfFailure(int rc, const char* call) {
  if (rc != MPI_SUCCESS && failurePending()) recoveredLocally(rc, call, /*resumable=*/false);
}

bool succeededIn(int rc, const MPI_Status& status) {
  return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && status.MPI_ERROR == MPI_SUCCESS);
}

void recordCompleted(MessageLog& log, std::vector<int> indices) {
  ftb::mpi_bridge::interposition::record(log, {Determinant::Kind::kCompletion, {}, std::move(indices)});
}

// After a Waitsome or Testsome: the `outcount` requests named by `indices`
// finished (their statuses in that order); recorded as one determinant.
void settleSome(MessageLog& log, MPI_Request* requests, const std::vector<MPI_Request>& real, int rc, int outcount,
                const int* indices, MPI_Status* statuses) {
  const int done = outcount == MPI_UNDEFINED ? 0 : outcount;
  for (int k = 0; k < done; ++k) {
    settle(log, &requests[indices[k]], real[indices[k]], succeededIn(rc, statuses[k]), statuses[k]);
  }
  recordCompleted(log, std::vector<int>(indices, indices + done));
}

// The statuses the caller wants, or room of our own when it ignores them.
struct Statuses {
  Statuses(MPI_Status* given, int count) : own(given == MPI_STATUSES_IGNORE ? count : 0) {
    at = given == MPI_STATUSES_IGNORE ? own.data() : given;
  }
  std::vector<MPI_Status> own;
  MPI_Status* at;
};

// A replayed outcome: waits for each of `indices` (into `requests`, `count`
// long) in turn, its status in `statuses[k]`, and settles it.
int waitForEach(MessageLog& log, int count, MPI_Request* requests, const std::vector<int>& indices,
                MPI_Status* statuses, const char* call) {
  int result = MPI_SUCCESS;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const int i = indices[k];
    if (i < 0 || i >= count) ftb::mpi_bridge::interposition::cannotReplay(call);
    LoggedRequest* ours = logged(requests[i]);
    MPI_Request real = ours ? ours->real : requests[i];
    const int rc = PMPI_Wait(&real, &statuses[k]);
    spoilIfFailure(rc, call);
    settle(log, &requests[i], real, rc == MPI_SUCCESS, statuses[k]);
    if (rc != MPI_SUCCESS) result = rc;
  }
  recordCompleted(log, indices);
  return result;
}

// Whether any of `requests` is still active (MPI_UNDEFINED answers otherwise).
bool anyActive(int count, const MPI_Request* requests) {
  for (MPI_Request r : realOf(count, requests)) {
    if (r != MPI_REQUEST_NULL) return true;
  }
  return false;
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  MessageLog* log = logForAny(1, request);
  if (!log) return PMPI_Wait(request, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  for (;;) {
    MPI_Request real = logged(*request)->real;
    const int rc = PMPI_Wait(&real, st);
    const bool failed = rc != MPI_SUCCESS && failurePending();
    settle(*log, request, real, rc == MPI_SUCCESS, *st, failed);
    if (!failed || !recoveredLocally(rc, "MPI_Wait")) return rc;
  }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  MessageLog* log = logForAny(count, requests);
  if (!log) return PMPI_Waitall(count, requests, statuses);
  Statuses st(statuses, count);
  for (;;) {
    std::vector<MPI_Request> real = realOf(count, requests);
    const int rc = PMPI_Waitall(count, real.data(), st.at);
    const bool failed = rc != MPI_SUCCESS && failurePending();
    for (int i = 0; i < count; ++i) settle(*log, &requests[i], real[i], succeededIn(rc, st.at[i]), st.at[i], failed);
    if (!failed || !recoveredLocally(rc, "MPI_Waitall")) return rc;
  }
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  MessageLog* log = logForAny(count, requests);
  if (!log) return PMPI_Waitany(count, requests, index, status);
  std::vector<MPI_Request> real = realOf(count, requests);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  if (auto done = replayedCompletion("MPI_Waitany")) {
    if (done->size() > 1) ftb::mpi_bridge::interposition::cannotReplay("MPI_Waitany");
    *index = done->empty() ? MPI_UNDEFINED : done->front();
    return waitForEach(*log, count, requests, *done, st, "MPI_Waitany");
  }
  const int rc = PMPI_Waitany(count, real.data(), index, st);
  spoilIfFailure(rc, "MPI_Waitany");
  if (*index == MPI_UNDEFINED) {
    recordCompleted(*log, {});
  } else {
    settle(*log, &requests[*index], real[*index], rc == MPI_SUCCESS, *st);
    recordCompleted(*log, {*index});
  }
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  MessageLog* log = logForAny(incount, requests);
  if (!log) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  std::vector<MPI_Request> real = realOf(incount, requests);
  Statuses st(statuses, incount);
  if (auto done = replayedCompletion("MPI_Waitsome")) {
    *outcount = done->empty() ? MPI_UNDEFINED : static_cast<int>(done->size());
    std::copy(done->begin(), done->end(), indices);
    return waitForEach(*log, incount, requests, *done, st.at, "MPI_Waitsome");
  }
  const int rc = PMPI_Waitsome(incount, real.data(), outcount, indices, st.at);
  spoilIfFailure(rc, "MPI_Waitsome");
  settleSome(*log, requests, real, rc, *outcount, indices, st.at);
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  MessageLog* log = logForAny(1, request);
  if (!log) return PMPI_Test(request, flag, status);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  if (auto done = replayedCompletion("MPI_Test")) {
    *flag = !done->empty();
    return waitForEach(*log, 1, request, *done, st, "MPI_Test");
  }
  MPI_Request real = logged(*request)->real;
  const int rc = PMPI_Test(&real, flag, st);
  spoilIfFailure(rc, "MPI_Test");
  settle(*log, request, real, rc == MPI_SUCCESS, *st);
  recordCompleted(*log, *flag ? std::vector<int>{0} : std::vector<int>{});
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  MessageLog* log = logForAny(count, requests);
  if (!log) return PMPI_Testall(count, requests, flag, statuses);
  std::vector<MPI_Request> real = realOf(count, requests);
  Statuses st(statuses, count);
  if (auto done = replayedCompletion("MPI_Testall")) {
    *flag = !done->empty() || count == 0;
    return waitForEach(*log, count, requests, *done, st.at, "MPI_Testall");
  }
  const int rc = PMPI_Testall(count, real.data(), flag, st.at);
  spoilIfFailure(rc, "MPI_Testall");
  std::vector<int> completed;
  if (*flag) {
    for (int i = 0; i < count; ++i) {
      settle(*log, &requests[i], real[i], succeededIn(rc, st.at[i]), st.at[i]);
      completed.push_back(i);
    }
  }
  recordCompleted(*log, std::move(completed));
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  MessageLog* log = logForAny(count, requests);
  if (!log) return PMPI_Testany(count, requests, index, flag, status);
  std::vector<MPI_Request> real = realOf(count, requests);
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  if (auto done = replayedCompletion("MPI_Testany")) {
    if (done->size() > 1) ftb::mpi_bridge::interposition::cannotReplay("MPI_Testany");
    // None found: as MPI answers, "true" when no request was active.
    *flag = !done->empty() || !anyActive(count, requests);
    *index = done->empty() ? MPI_UNDEFINED : done->front();
    return waitForEach(*log, count, requests, *done, st, "MPI_Testany");
  }
  const int rc = PMPI_Testany(count, real.data(), index, flag, st);
  spoilIfFailure(rc, "MPI_Testany");
  if (*flag && *index != MPI_UNDEFINED) {
    settle(*log, &requests[*index], real[*index], rc == MPI_SUCCESS, *st);
    recordCompleted(*log, {*index});
  } else {
    recordCompleted(*log, {});
  }
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  MessageLog* log = logForAny(incount, requests);
  if (!log) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  std::vector<MPI_Request> real = realOf(incount, requests);
  Statuses st(statuses, incount);
  if (auto done = replayedCompletion("MPI_Testsome")) {
    *outcount = !done->empty() || anyActive(incount, requests) ? static_cast<int>(done->size()) : MPI_UNDEFINED;
    std::copy(done->begin(), done->end(), indices);
    return waitForEach(*log, incount, requests, *done, st.at, "MPI_Testsome");
  }
  const int rc = PMPI_Testsome(incount, real.data(), outcount, indices, st.at);
  spoilIfFailure(rc, "MPI_Testsome");
  settleSome(*log, requests, real, rc, *outcount, indices, st.at);
  return rc;
}

// Asks without finishing the request: the answer is recorded, nothing settled.
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  MessageLog* log = logForAny(1, &request);
  if (!log) return PMPI_Request_get_status(request, flag, status);
  if (auto done = replayedCompletion("MPI_Request_get_status")) {
    // Found complete the first time: asked until it is, still not finished.
    *flag = 0;
    int rc = MPI_SUCCESS;
    while (!done->empty() && !*flag && rc == MPI_SUCCESS) {
      rc = PMPI_Request_get_status(logged(request)->real, flag, status);
    }
    spoilIfFailure(rc, "MPI_Request_get_status");
    recordCompleted(*log, std::move(*done));
    return rc;
  }
  const int rc = PMPI_Request_get_status(logged(request)->real, flag, status);
  spoilIfFailure(rc, "MPI_Request_get_status");
  recordCompleted(*log, *flag ? std::vector<int>{0} : std::vector<int>{});
  return rc;
}

// A send's message is in the log already; a receive freed before it finished
// can never be counted, so the epoch cannot be replayed.
int MPI_Request_free(MPI_Request* request) {
  MessageLog* log = logForAny(1, request);
  if (!log) return PMPI_Request_free(request);
  LoggedRequest* ours = logged(*request);
  if (ours->receive) log->spoil("MPI_Request_free of a receive on the logged communicator");
  const int rc = PMPI_Request_free(&ours->real);
  forget(ours);
  *request = MPI_REQUEST_NULL;
  return rc;
}

// Whether a cancel succeeds is not known until the request finishes: the
// epoch cannot be replayed. The handle stays ours until it is waited for.
int MPI_Cancel(MPI_Request* request) {
  MessageLog* log = logForAny(1, request);
  if (!log) return PMPI_Cancel(request);
  log->spoil("MPI_Cancel of a request on the logged communicator (not covered by local rollback's log)");
  return PMPI_Cancel(&logged(*request)->real);
}

}  // extern "C"
