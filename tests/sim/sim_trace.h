// Debug output for a failing seed, off unless asked for:
//   FTB_SIM_TRACE=<publisher>:<seq>  every hop of that event, plus membership
//                                    messages (join, interest, probe, merge,
//                                    leave), kills, restarts and topology changes
//   FTB_SIM_DEBUG=1                  agents not attached (roots, joiners) at
//                                    the test's checkpoints
#pragma once

#include <string>

#include "agent/tree/tree_node.h"

namespace ftb::sim {

class Trace {
 public:
  Trace();  // reads FTB_SIM_TRACE
  bool on() const { return on_; }
  void message(tree::Nanos now, const std::string& to, const tree::TreeMessage& message) const;
  void fault(tree::Nanos now, const char* what, const std::string& address) const;
  void topology(const std::string& address, const tree::TopologyChange& change) const;

 private:
  bool on_ = false;
  std::string event_;  // "<publisher>:<seq>"
};

bool debugRequested();  // FTB_SIM_DEBUG

}  // namespace ftb::sim
