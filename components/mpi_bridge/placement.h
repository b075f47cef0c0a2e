// Topology-aware groups: members of one group sit in distinct failure domains
// (nodes, unless FTBCKPT_DOMAIN_MAP groups nodes into power/switch domains), so
// losing one domain costs each group at most one member. Any rank count works;
// the last groups may be smaller. Pure function, no MPI.
#pragma once

#include <string>
#include <vector>

namespace ftb::mpi_bridge {

struct Groups {
  std::vector<std::vector<int>> members;  // ascending world ranks per group
  std::vector<int> group_of;              // world rank -> group index
  std::vector<int> position;              // world rank -> index within its group
};

// domain_of_rank[r] is the failure domain of world rank r. Groups have at most
// group_size members, all in distinct domains. A rank whose domain is the only
// one left joins the smallest group that lacks its domain; if every group has
// it (a single domain), it forms a group of one (unprotected beyond L1).
Groups formGroups(const std::vector<std::string>& domain_of_rank, int group_size);

// Rebuilds group_of/position from member lists (e.g. read back from a checkpoint).
Groups groupsFromTable(const std::vector<int>& group_of);

}  // namespace ftb::mpi_bridge
