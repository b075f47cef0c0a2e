#include "components/mpi_bridge/collective_expression.h"

namespace ftb::mpi_bridge {

namespace {

// Children of `rank` in a binomial tree rooted at `root`: the k with 2^k above
// its position v (relative to the root) and v + 2^k inside the group.
std::size_t binomialChildren(int rank, int size, int root) {
  const int v = (rank - root + size) % size;
  std::size_t children = 0;
  for (long step = 1; v + step < size; step <<= 1) {
    if (step > v) ++children;
  }
  return children;
}

std::size_t recursiveDoublingSends(int rank, int size) {
  int pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  std::size_t rounds = 0;
  for (int step = 1; step < pof2; step <<= 1) ++rounds;
  const int extra = size - pof2;
  if (rank >= 2 * extra) return rounds;
  // The first 2*extra ranks pair up: the even one hands its data to the odd
  // one and sits the exchange out; the odd one hands it the result back.
  return rank % 2 == 0 ? 1 : rounds + 1;
}

}  // namespace

std::size_t pointToPointBytes(CollectiveShape shape, int rank, int size, int root, std::size_t bytes) {
  if (size <= 1) return 0;
  switch (shape) {
    case CollectiveShape::kBarrier:
      return 0;
    case CollectiveShape::kBcast:
      return binomialChildren(rank, size, root) * bytes;
    case CollectiveShape::kAllreduce:
      return recursiveDoublingSends(rank, size) * bytes;
    case CollectiveShape::kAllgather:
      return bytes / static_cast<std::size_t>(size) * static_cast<std::size_t>(size - 1);
    case CollectiveShape::kGather:
      return rank == root ? 0 : bytes;
  }
  return 0;
}

}  // namespace ftb::mpi_bridge
