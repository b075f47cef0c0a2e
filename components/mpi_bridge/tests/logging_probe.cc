// What local rollback's log records of a program's traffic (logged_mpi_test).
//
//   mpirun -np 3 logging_probe SCENARIO
//
// Every rank runs SCENARIO on ftbckpt_comm() and prints what its log holds
// then: "CHECK rank=R ok=1", or "CHECK rank=R ok=0 <what failed>", and
// "REASON rank=R <why the epoch cannot be replayed>" (empty: it can).
// Scenarios: covered, uncovered, derived, crossed, bound, line, passthrough.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "components/mpi_bridge/ftbckpt.h"
#include "components/mpi_bridge/logged_mpi.h"

using ftb::mpi_bridge::Channel;
using ftb::mpi_bridge::Determinant;
using ftb::mpi_bridge::LoggedMpi;
using ftb::mpi_bridge::MessageLog;

namespace {

int rank = 0, size = 0, right = 0, left = 0;
std::vector<std::string> failures;

void expect(bool ok, const std::string& what) {
  if (!ok) failures.push_back(what);
}

void reason() {
  std::printf("REASON rank=%d %s\n", rank, LoggedMpi::started() ? LoggedMpi::log().whyNotReplayable().c_str() : "");
}

int countDeterminants(Determinant::Kind kind) {
  int n = 0;
  for (const auto& d : LoggedMpi::log().determinants()) n += d.kind == kind;
  return n;
}

void covered(MPI_Comm comm) {
  int value = 1000 + rank, got = -1;
  // Blocking send and receive (eager for one int, so the ring cannot deadlock).
  MPI_Send(&value, 1, MPI_INT, right, 1, comm);
  MPI_Recv(&got, 1, MPI_INT, left, 1, comm, MPI_STATUS_IGNORE);
  expect(got == 1000 + left, "MPI_Recv got the left neighbour's value");
  MPI_Sendrecv(&value, 1, MPI_INT, right, 2, &got, 1, MPI_INT, left, 2, comm, MPI_STATUS_IGNORE);
  // A wildcard receive: its match is a determinant.
  MPI_Request requests[2];
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, comm, &requests[0]);
  MPI_Isend(&value, 1, MPI_INT, right, 3, comm, &requests[1]);
  MPI_Status statuses[2];
  MPI_Waitall(2, requests, statuses);
  expect(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL, "MPI_Waitall nulls the handles");
  expect(statuses[0].MPI_SOURCE == left && got == 1000 + left, "the wildcard receive's status names the sender");
  // Which of two requests finishes first is an outcome: two determinants.
  MPI_Irecv(&got, 1, MPI_INT, left, 4, comm, &requests[0]);
  MPI_Isend(&value, 1, MPI_INT, right, 4, comm, &requests[1]);
  for (int k = 0; k < 2; ++k) {
    int index = -1;
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
  }
  expect(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL, "MPI_Waitany nulls the handles");
  // MPI_Waitsome, then MPI_Testsome, until both requests finish: however many
  // calls that takes, each call's answer is recorded.
  int completion_calls = 2;  // the two MPI_Waitany
  for (int tag = 5; tag <= 6; ++tag) {
    MPI_Irecv(&got, 1, MPI_INT, left, tag, comm, &requests[0]);
    MPI_Isend(&value, 1, MPI_INT, right, tag, comm, &requests[1]);
    for (int pending = 2; pending > 0; ++completion_calls) {
      int outcount = 0, indices[2];
      if (tag == 5) {
        MPI_Waitsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE);
      } else {
        MPI_Testsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE);
      }
      pending -= outcount == MPI_UNDEFINED ? pending : outcount;
    }
    expect(got == 1000 + left && requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL,
           "MPI_Waitsome and MPI_Testsome finish and null the handles");
  }
  int root_value = rank == 0 ? 42 : 0, sum = 0;
  MPI_Bcast(&root_value, 1, MPI_INT, 0, comm);
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm);
  std::vector<int> all(static_cast<std::size_t>(size));
  MPI_Allgather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, comm);
  MPI_Barrier(comm);

  const MessageLog& log = LoggedMpi::log();
  for (int tag = 1; tag <= 6; ++tag) {
    expect(log.sentCount({right, tag}) == 1, "one message sent on tag " + std::to_string(tag));
    expect(log.receivedCount({left, tag}) == 1, "one message received on tag " + std::to_string(tag));
  }
  expect(log.sentTo(right) == 6 && log.receivedFrom(left) == 6, "six messages each way");
  auto payload = log.sentAfter({right, 1}, 0);
  expect(payload.size() == 1 && payload[0].size() == sizeof value &&
             std::memcmp(payload[0].data(), &value, sizeof value) == 0,
         "the logged payload is the value sent");
  expect(countDeterminants(Determinant::Kind::kMatch) == 1 && log.determinants().front().channel == Channel{left, 3},
         "the wildcard receive's match is recorded");
  expect(log.determinants().front().indices == std::vector<int>{0},
         "the match names the epoch's first wildcard MPI_Irecv");
  expect(countDeterminants(Determinant::Kind::kCompletion) == completion_calls,
         "each MPI_Waitany, Waitsome and Testsome answer is recorded");
  expect(log.collectives() == 4, "four collectives logged");
  if (ftb::mpi_bridge::keepsCollectiveResults(rank)) {
    auto bcast = log.collectiveResult(0);
    expect(bcast.size() == sizeof(int) && std::memcmp(bcast.data(), &root_value, sizeof(int)) == 0 && root_value == 42,
           "the broadcast's result is logged");
    expect(log.collectiveResult(2).size() == all.size() * sizeof(int), "the allgather's whole result is logged");
  } else {
    expect(log.collectiveResult(0).empty() && log.collectiveResult(2).empty(),
           "a rank that keeps no collectives' results counts them only");
  }
  expect(log.replayable(), "the epoch is replayable");
}

void uncovered(MPI_Comm comm) {
  int value = rank, sum = 0;
  MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, comm);
  expect(!LoggedMpi::log().replayable(), "MPI_Reduce spoils the epoch");
}

// A communicator derived from the logged one: its creation spoils the epoch,
// and its traffic spoils a later one.
void derived(MPI_Comm comm) {
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  reason();
  ftbckpt_checkpoint(FTBCKPT_L1, 1);
  expect(LoggedMpi::log().replayable(), "a checkpoint line starts a replayable epoch");
  int value = rank, got = -1;
  MPI_Sendrecv(&value, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, dup, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);
}

// Rank 0 sends to rank 1 before a checkpoint; rank 1 receives it after.
void crossed(MPI_Comm comm) {
  int value = 7;
  if (rank == 0) MPI_Send(&value, 1, MPI_INT, 1, 9, comm);
  ftbckpt_checkpoint(FTBCKPT_L1, 1);
  if (rank == 1) MPI_Recv(&value, 1, MPI_INT, 0, 9, comm, MPI_STATUS_IGNORE);
  expect(LoggedMpi::log().replayable() == (rank != 1), "only the receiver's epoch is spoiled");
}

// FTBCKPT_LOG_MB=1 and a message of 2 MiB.
void bound(MPI_Comm comm) {
  std::vector<char> out(2u << 20, 'x'), in(out.size());
  MPI_Sendrecv(out.data(), static_cast<int>(out.size()), MPI_CHAR, right, 0, in.data(), static_cast<int>(in.size()),
               MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);
  expect(in == out, "the message arrived whole");
  expect(LoggedMpi::log().sentCount({right, 0}) == 1, "a message past the bound is still counted");
}

// A checkpoint line forgets the epoch before it.
void line(MPI_Comm comm) {
  int value = rank, got = -1;
  MPI_Sendrecv(&value, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, comm, MPI_STATUS_IGNORE);
  expect(LoggedMpi::log().line() == -1, "the first epoch starts at the job's start");
  ftbckpt_checkpoint(FTBCKPT_L1, 1);
  expect(LoggedMpi::log().sentTo(right) == 0 && LoggedMpi::log().receivedFrom(left) == 0, "the line forgot the counts");
  expect(LoggedMpi::log().line() == 0, "the epoch starts at checkpoint 0");
}

// Without FTBCKPT_LOCAL_ROLLBACK every call goes straight to Open MPI.
void passthrough(MPI_Comm comm) {
  expect(!LoggedMpi::started(), "nothing is logged");
  int value = rank, got = -1;
  MPI_Request requests[2];
  MPI_Irecv(&got, 1, MPI_INT, left, 0, comm, &requests[0]);
  MPI_Isend(&value, 1, MPI_INT, right, 0, comm, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  expect(got == left, "the exchange worked");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (int rc = ftbckpt_init(MPI_COMM_WORLD); rc != FTBCKPT_SUCCESS) {
    std::fprintf(stderr, "logging_probe: ftbckpt_init: %s\n", ftbckpt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm comm = ftbckpt_comm();
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  static char buffer[4096];
  ftbckpt_protect(0, buffer, sizeof buffer);
  if (scenario == "covered") covered(comm);
  else if (scenario == "uncovered") uncovered(comm);
  else if (scenario == "derived") derived(comm);
  else if (scenario == "crossed") crossed(comm);
  else if (scenario == "bound") bound(comm);
  else if (scenario == "line") line(comm);
  else if (scenario == "passthrough") passthrough(comm);
  else expect(false, "unknown scenario '" + scenario + "'");
  std::string what;
  for (const auto& f : failures) what += " [" + f + "]";
  std::printf("CHECK rank=%d ok=%d%s\n", rank, failures.empty() ? 1 : 0, what.c_str());
  reason();
  std::fflush(stdout);
  MPI_Barrier(comm);
  const int code = ftbckpt_finalize();
  MPI_Finalize();
  return code;
}
