// RecordingFrameSink: the Router's FrameSink for tests that run the agent's
// core without sockets. It keeps every frame per routing id, or refuses it as
// a full pipe does for the routing ids in `full`.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/routing/router.h"

namespace ftb::testing {

class RecordingFrameSink : public agent::FrameSink {
 public:
  bool trySend(const std::string& routing_id, const std::string& frame) override {
    if (full.count(routing_id) != 0) return false;
    sent[routing_id].push_back(frame);
    return true;
  }
  std::map<std::string, std::vector<std::string>> sent;  // by routing id, in order
  std::set<std::string> full;                             // routing ids whose pipe is full
};

}  // namespace ftb::testing
