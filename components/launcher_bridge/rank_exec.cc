#include "components/launcher_bridge/rank_exec.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace ftb::launcher {

std::string hostOfRank(const std::string& rank_hosts, int rank) {
  const std::string key = std::to_string(rank) + "=";
  std::size_t pos = 0;
  while (pos < rank_hosts.size()) {
    std::size_t end = rank_hosts.find(',', pos);
    if (end == std::string::npos) end = rank_hosts.size();
    if (rank_hosts.compare(pos, key.size(), key) == 0) return rank_hosts.substr(pos + key.size(), end - pos - key.size());
    pos = end + 1;
  }
  return "";
}

int rankExec(const std::vector<std::string>& program) {
  if (program.empty()) {
    std::cerr << "ftb-run --rank-exec: no program given\n";
    return 2;
  }
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* hosts = std::getenv("FTB_RANK_HOSTS");
  if (rank != nullptr && hosts != nullptr) {
    std::string host = hostOfRank(hosts, std::atoi(rank));
    if (!host.empty()) setenv("FTB_NODE_NAME", host.c_str(), 1);
  }
  std::vector<char*> args;
  for (const auto& a : program) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::cerr << "ftb-run --rank-exec: cannot run " << program[0] << ": " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace ftb::launcher
