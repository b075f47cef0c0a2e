// Waits until the ranks of a job are connected to an agent as ftbckpt clients
// and subscribed (from then on they see the launcher's requests), by asking
// the agent's control API. For tests that start a job and then publish requests.
#pragma once

#include <chrono>
#include <string>

namespace ftb::mpi_bridge::testing {

// True once `n` clients in FTB.MPI.FTBCKPT with job id `job_id` hold a
// subscription, false if `timeout` passed first.
bool awaitConnectedRanks(const std::string& agent_endpoint, const std::string& job_id, int n,
                         std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace ftb::mpi_bridge::testing
