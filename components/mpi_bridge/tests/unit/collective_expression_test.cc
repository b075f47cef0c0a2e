// pointToPointBytes: what logging a collective's algorithm would keep per rank
// (collective_expression.h), checked against the algorithms' message counts.
#define BOOST_TEST_MODULE collective_expression_test
#include "components/mpi_bridge/collective_expression.h"

#include <boost/test/unit_test.hpp>

#include <cstddef>

using ftb::mpi_bridge::CollectiveShape;
using ftb::mpi_bridge::pointToPointBytes;

namespace {

std::size_t overAllRanks(CollectiveShape shape, int size, int root, std::size_t bytes) {
  std::size_t total = 0;
  for (int rank = 0; rank < size; ++rank) total += pointToPointBytes(shape, rank, size, root, bytes);
  return total;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_binomial_broadcast_sends_the_buffer_once_to_every_rank_but_the_root) {
  for (int size : {1, 2, 3, 5, 8, 13}) {
    for (int root = 0; root < size; ++root) {
      BOOST_TEST(overAllRanks(CollectiveShape::kBcast, size, root, 10) == 10u * static_cast<std::size_t>(size - 1),
                 "size " << size << " root " << root);
    }
  }
  BOOST_TEST(pointToPointBytes(CollectiveShape::kBcast, 0, 8, 0, 10) == 30u);  // children 1, 2, 4
  BOOST_TEST(pointToPointBytes(CollectiveShape::kBcast, 3, 8, 2, 10) == 20u);  // position 1: children 3, 5
  BOOST_TEST(pointToPointBytes(CollectiveShape::kBcast, 7, 8, 0, 10) == 0u);   // a leaf
}

BOOST_AUTO_TEST_CASE(recursive_doubling_sends_log2_size_buffers_per_rank_plus_the_pairs_of_a_remainder) {
  for (int rank = 0; rank < 8; ++rank) BOOST_TEST(pointToPointBytes(CollectiveShape::kAllreduce, rank, 8, 0, 10) == 30u);
  // 6 = 4 + 2: ranks 0 and 2 hand their data over (1 send), ranks 1 and 3
  // exchange twice and hand the result back (3), ranks 4 and 5 exchange (2).
  BOOST_TEST(overAllRanks(CollectiveShape::kAllreduce, 6, 0, 10) == 120u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kAllreduce, 0, 6, 0, 10) == 10u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kAllreduce, 1, 6, 0, 10) == 30u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kAllreduce, 5, 6, 0, 10) == 20u);
}

BOOST_AUTO_TEST_CASE(a_ring_allgather_passes_on_every_block_but_its_last) {
  BOOST_TEST(pointToPointBytes(CollectiveShape::kAllgather, 3, 8, 0, 80) == 70u);
}

BOOST_AUTO_TEST_CASE(a_linear_gather_sends_each_contribution_once_and_a_barrier_no_payload) {
  BOOST_TEST(pointToPointBytes(CollectiveShape::kGather, 2, 4, 0, 4) == 4u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kGather, 0, 4, 0, 4) == 0u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kBarrier, 1, 4, 0, 0) == 0u);
}

BOOST_AUTO_TEST_CASE(one_rank_sends_nothing) {
  BOOST_TEST(pointToPointBytes(CollectiveShape::kAllreduce, 0, 1, 0, 10) == 0u);
  BOOST_TEST(pointToPointBytes(CollectiveShape::kBcast, 0, 1, 0, 10) == 0u);
}
