#include "components/mpi_bridge/testing/connected_ranks.h"

#include "client/control_client.h"
#include "tests/support/agent_process.h"

namespace ftb::mpi_bridge::testing {

bool awaitConnectedRanks(const std::string& agent_endpoint, const std::string& job_id, int n,
                         std::chrono::milliseconds timeout) {
  auto control = ControlClient::connect(agent_endpoint);
  if (!control) return false;
  return ftb::testing::waitFor(
      [&] {
        auto clients = control->clients(std::chrono::milliseconds(1000));
        if (!clients) return false;
        int ranks = 0;
        for (const auto& c : clients->clients()) {
          ranks += c.event_space() == "FTB.MPI.FTBCKPT" && c.job_id() == job_id && c.subscriptions_size() > 0;
        }
        return ranks == n;
      },
      timeout);
}

}  // namespace ftb::mpi_bridge::testing
