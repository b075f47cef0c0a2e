// `ftb-run --rank-exec -- prog args`: what mpirun starts on every rank. It
// sets FTB_NODE_NAME from the launcher's rank map (FTB_RANK_HOSTS, "0=n1,...")
// and this rank's number (OMPI_COMM_WORLD_RANK), then execs the program, so
// the checkpoint runtime names the node the launcher placed it on.
#pragma once

#include <string>
#include <vector>

namespace ftb::launcher {

// The host of `rank` in `rank_hosts`, "" when absent.
std::string hostOfRank(const std::string& rank_hosts, int rank);

// Execs the program; returns only on failure (with the exit code to use).
int rankExec(const std::vector<std::string>& program);

}  // namespace ftb::launcher
