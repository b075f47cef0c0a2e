// RecordingFrameSink: the Router's FrameSink for tests that run the agent's
// core without sockets. It keeps every frame per routing id, or refuses it as
// a full pipe does for the routing ids in `full`; the routing ids in `unread`
// have no room (a client known to leave its frames unread).
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
  bool hasRoom(const std::string& routing_id) override { return unread.count(routing_id) == 0; }
  std::map<std::string, std::vector<std::string>> sent;  // by routing id, in order
  std::set<std::string> full;                             // routing ids whose pipe is full
  std::set<std::string> unread;                           // routing ids without room
};

}  // namespace ftb::testing
