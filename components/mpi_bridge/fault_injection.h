// Fault injection for tests: a rank kills itself (SIGKILL) at a named point
// inside the runtime, where no outside signal could be timed to land.
//
//   FTBCKPT_FAULT=checkpoint:R:N  rank R dies inside checkpoint N: its own file
//                                 of N half-written (marked as being written,
//                                 its blob in), before its group's exchange
//   FTBCKPT_FAULT=restore:R       the process restoring rank R dies once every
//                                 rank agreed on what to restore, before any
//                                 data moves (a run-through's replacement, or
//                                 a relaunched rank)
//   FTBCKPT_FAULT=replay:R        the replacement of rank R dies in a local
//                                 recovery's replay, at the first send it
//                                 skips (before it caught up)
//   FTBCKPT_FAULT_ONCE=PATH       only the process that creates PATH first
//                                 dies: the replacement or relaunch after it
//                                 runs on (without it, every process that
//                                 reaches the point dies)
//
// Unset, nothing happens. Pure (no MPI).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "client/status.h"

namespace ftb::mpi_bridge {

enum class FaultPoint { kNone, kCheckpoint, kRestore, kReplay };

struct FaultInjection {
  FaultPoint point = FaultPoint::kNone;
  int rank = -1;
  int64_t ckpt_id = -1;   // kCheckpoint only
  std::string once_path;  // "" = every time
};

// FTBCKPT_FAULT's text (`once_path` from FTBCKPT_FAULT_ONCE); "" = none.
Result<FaultInjection> parseFaultInjection(std::string_view spec, std::string once_path);

// True when `fault` names this point, rank (and checkpoint) and, with a once
// path, this process created it.
bool faultDue(const FaultInjection& fault, FaultPoint point, int rank, int64_t ckpt_id = -1);

// faultDue, then a line on stderr and SIGKILL.
void dieIfInjected(const FaultInjection& fault, FaultPoint point, int rank, int64_t ckpt_id = -1);

}  // namespace ftb::mpi_bridge
