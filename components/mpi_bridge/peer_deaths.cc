#include "components/mpi_bridge/peer_deaths.h"

namespace ftb::mpi_bridge {

void PeerDeaths::learn(std::vector<PeerProcess> peers, int self) {
  std::lock_guard lock(mu_);
  peers_ = std::move(peers);
  self_ = self;
  current_ = true;
}

void PeerDeaths::repairing() {
  std::lock_guard lock(mu_);
  current_ = false;
}

bool PeerDeaths::announce(int rank, const std::string& node, long pid) {
  {
    std::lock_guard lock(mu_);
    if (!current_ || rank == self_ || rank < 0 || rank >= static_cast<int>(peers_.size())) return false;
    const PeerProcess& now = peers_[static_cast<std::size_t>(rank)];
    if (now.pid != pid || now.node != node) return false;
    current_ = false;  // one repair per table: the next learn() re-arms
  }
  on_death_(rank);
  return true;
}

}  // namespace ftb::mpi_bridge
