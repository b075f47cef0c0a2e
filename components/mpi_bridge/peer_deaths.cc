#include "components/mpi_bridge/peer_deaths.h"

#include <charconv>
#include <sstream>

namespace ftb::mpi_bridge {

std::vector<int> ranksOfJob(const std::string& job_ranks, const std::string& job) {
  std::stringstream entries(job_ranks);
  for (std::string entry; std::getline(entries, entry, ';');) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos || entry.compare(0, colon, job) != 0 || colon != job.size()) continue;
    std::vector<int> ranks;
    std::stringstream list(entry.substr(colon + 1));
    for (std::string item; std::getline(list, item, ',');) {
      int rank = -1;
      auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), rank);
      if (ec != std::errc() || end != item.data() + item.size() || rank < 0) return {};
      ranks.push_back(rank);
    }
    return ranks;
  }
  return {};
}

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

bool PeerDeaths::announceNode(const std::string& node, const std::vector<int>& ranks) {
  int first = -1;
  {
    std::lock_guard lock(mu_);
    if (!current_ || self_ < 0 || self_ >= static_cast<int>(peers_.size())) return false;
    if (peers_[static_cast<std::size_t>(self_)].node == node) return false;  // I run there: the node lives
    for (int rank : ranks) {
      if (rank >= 0 && rank < static_cast<int>(peers_.size()) && peers_[static_cast<std::size_t>(rank)].node == node) {
        first = rank;
        break;
      }
    }
    if (first < 0) return false;
    current_ = false;
  }
  on_death_(first);
  return true;
}

}  // namespace ftb::mpi_bridge
