// The C API (ftbckpt.h) over one process-wide Runtime.
#include <cstdio>
#include <memory>
#include <string>

#include "components/mpi_bridge/ftbckpt.h"
#include "components/mpi_bridge/ftbckpt.hpp"
#include "components/mpi_bridge/logged_mpi.h"
#include "components/mpi_bridge/ulfm_recovery.h"

namespace {

using ftb::Code;
using ftb::Status;
using ftb::mpi_bridge::Level;
using ftb::mpi_bridge::LoggedMpi;
using ftb::mpi_bridge::Runtime;

std::unique_ptr<Runtime> g_runtime;
std::string g_last_error;

int fail(const Status& s) {
  g_last_error = s.toString();
  switch (s.code()) {
    case Code::kInvalidArgument:
      return FTBCKPT_EINVAL;
    case Code::kFailedPrecondition:
      return FTBCKPT_ESTATE;
    case Code::kNotFound:
      return FTBCKPT_ENORESTORE;
    default:
      return FTBCKPT_EIO;
  }
}

int notInitialised() { return fail(ftb::failedPrecondition("ftbckpt_init has not been called")); }

}  // namespace

extern "C" {

int ftbckpt_init(MPI_Comm comm) {
  LoggedMpi::RuntimeCall in_runtime;  // its own MPI calls are not the application's traffic
  if (g_runtime) return fail(ftb::failedPrecondition("ftbckpt_init called twice"));
  auto config = ftb::mpi_bridge::configFromEnvironment();
  if (!config) return fail(config.status());
  auto rt = Runtime::create(comm, std::move(*config));
  if (!rt) return fail(rt.status());
  g_runtime = std::move(*rt);
  return FTBCKPT_SUCCESS;
}

int ftbckpt_protect(int id, void* ptr, size_t bytes) {
  if (!g_runtime) return notInitialised();
  Status s = g_runtime->protect(id, ptr, bytes);
  return s.ok() ? FTBCKPT_SUCCESS : fail(s);
}

int ftbckpt_loop(void) {
  LoggedMpi::RuntimeCall in_runtime;  // its own MPI calls are not the application's traffic
  if (!g_runtime) return notInitialised();
  auto r = g_runtime->loop();
  if (!r) return fail(r.status());
  return *r == Runtime::kExit ? FTBCKPT_EXIT : static_cast<int>(*r);
}

int ftbckpt_checkpoint(int level, long iteration) {
  LoggedMpi::RuntimeCall in_runtime;  // its own MPI calls are not the application's traffic
  if (!g_runtime) return notInitialised();
  if (level < FTBCKPT_DEFAULT || level > FTBCKPT_L5) {
    return fail(ftb::invalidArgument("level " + std::to_string(level) + " is not 0 (default) or 1..5"));
  }
  auto r = g_runtime->checkpoint(level == FTBCKPT_DEFAULT ? std::nullopt : std::optional<Level>(static_cast<Level>(level)),
                                 iteration);
  return r ? FTBCKPT_SUCCESS : fail(r.status());
}

int ftbckpt_restart_available(void) { return g_runtime && g_runtime->restartAvailable() ? 1 : 0; }

long ftbckpt_recover(void) {
  LoggedMpi::RuntimeCall in_runtime;  // its own MPI calls are not the application's traffic
  if (!g_runtime) return notInitialised();
  auto r = g_runtime->recover();
  return r ? static_cast<long>(r->iteration) : fail(r.status());
}

int ftbckpt_finalize(void) {
  LoggedMpi::RuntimeCall in_runtime;  // its own MPI calls are not the application's traffic
  if (!g_runtime) return notInitialised();
  int code = g_runtime->finalize();
  g_runtime.reset();
  return code;
}

const char* ftbckpt_last_error(void) { return g_last_error.c_str(); }

MPI_Comm ftbckpt_comm(void) { return g_runtime ? g_runtime->comm() : MPI_COMM_NULL; }

int ftbckpt_watch_comm(MPI_Comm comm) {
  if (!g_runtime) return notInitialised();
  if (comm == MPI_COMM_NULL) return fail(ftb::invalidArgument("ftbckpt_watch_comm: MPI_COMM_NULL"));
  ftb::mpi_bridge::UlfmRecovery::revokeWith(comm);
  return FTBCKPT_SUCCESS;
}

int ftbckpt_unwatch_comm(MPI_Comm comm) {
  if (!g_runtime) return notInitialised();
  ftb::mpi_bridge::UlfmRecovery::forget(comm);
  return FTBCKPT_SUCCESS;
}

// Not through g_runtime: any thread may ask, and the answer is process-wide.
int ftbckpt_interrupted(void) { return Runtime::interrupted() ? 1 : 0; }

const char* ftbckpt_node(void) { return g_runtime ? g_runtime->node().c_str() : nullptr; }

}  // extern "C"
