// For Boost.Test cases on a TreeCluster with fan-out 1: waits until its agents
// form one tree and returns them root first (TreeCluster::chain), or fails the
// case saying what was wrong.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "tests/integration/tree/tree_cluster.h"

namespace ftb::testing {

inline std::vector<int> formedChain(TreeCluster& cluster) {
  const std::string problem = cluster.waitForOneTree();
  BOOST_TEST_REQUIRE(problem.empty(), problem);
  const std::vector<int> order = cluster.chain();
  BOOST_TEST_REQUIRE(order.size() == static_cast<std::size_t>(cluster.size()),
                     "the " << cluster.size() << " agents did not form a chain");
  return order;
}

}  // namespace ftb::testing
