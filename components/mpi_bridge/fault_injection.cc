#include "components/mpi_bridge/fault_injection.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "components/mpi_bridge/config.h"

namespace ftb::mpi_bridge {
namespace {

bool parseWhole(const std::string& text, long long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return *end == '\0' && out >= 0;
}

}  // namespace

Result<FaultInjection> parseFaultInjection(std::string_view spec, std::string once_path) {
  FaultInjection fault;
  if (spec.empty()) return fault;
  const std::string text(spec);
  auto bad = [&] {
    return invalidArgument("FTBCKPT_FAULT=" + text + ": checkpoint:RANK:CKPT_ID, restore:RANK or replay:RANK");
  };
  const auto parts = split(text, ':');
  long long rank = 0, id = 0;
  if (parts[0] == "checkpoint" && parts.size() == 3 && parseWhole(parts[1], rank) && parseWhole(parts[2], id)) {
    fault.point = FaultPoint::kCheckpoint;
    fault.ckpt_id = id;
  } else if (parts[0] == "restore" && parts.size() == 2 && parseWhole(parts[1], rank)) {
    fault.point = FaultPoint::kRestore;
  } else if (parts[0] == "replay" && parts.size() == 2 && parseWhole(parts[1], rank)) {
    fault.point = FaultPoint::kReplay;
  } else {
    return bad();
  }
  fault.rank = static_cast<int>(rank);
  fault.once_path = std::move(once_path);
  return fault;
}

bool faultDue(const FaultInjection& fault, FaultPoint point, int rank, int64_t ckpt_id) {
  if (fault.point == FaultPoint::kNone || fault.point != point || fault.rank != rank) return false;
  if (point == FaultPoint::kCheckpoint && fault.ckpt_id != ckpt_id) return false;
  if (fault.once_path.empty()) return true;
  const int fd = ::open(fault.once_path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void dieIfInjected(const FaultInjection& fault, FaultPoint point, int rank, int64_t ckpt_id) {
  if (!faultDue(fault, point, rank, ckpt_id)) return;
  std::fprintf(stderr, "ftbckpt: rank %d dies here (FTBCKPT_FAULT: %s)\n", rank,
               point == FaultPoint::kCheckpoint ? "inside a checkpoint"
               : point == FaultPoint::kRestore  ? "while restoring"
                                                : "while replaying");
  std::fflush(stderr);
  std::raise(SIGKILL);
}

}  // namespace ftb::mpi_bridge
