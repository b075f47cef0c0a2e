// Test support: SDK clients for integration tests.
#pragma once

#include <memory>
#include <string>

#include <boost/test/unit_test.hpp>

#include "client/client.h"

namespace ftb::testing {

// Connects to the agent at `endpoint`, failing the current test (with the
// SDK's reason) when that is not possible.
inline std::unique_ptr<Client> connectOrFail(const std::string& endpoint, std::string space,
                                             std::string name) {
  auto c = Client::connect({.event_space = std::move(space),
                            .client_name = std::move(name),
                            .agent_endpoint = endpoint});
  BOOST_REQUIRE_MESSAGE(c.ok(), c.status().toString());
  return std::move(c).value();
}

}  // namespace ftb::testing
