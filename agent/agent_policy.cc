// The agent's side of the namespace policy: what a session may do, decided at
// Hello and again after a reload (agent_lifecycle.cc); what a peer may see is
// Admission::maySee, asked by live delivery, replays, history and loss notices.
#include <spdlog/spdlog.h>

#include "agent/agent.h"

namespace ftb::agent {

void Agent::applyPolicy(ClientSession& session) {
  if (auto uid = session.principal.uid(); uid && policy_.needsGroups() && session.principal.groups.empty()) {
    session.principal.groups = groupsOf(*uid);
  }
  session.may_publish =
      policy_.allows(NamespacePolicy::Action::kPublish, session.event_space, session.principal);
  session.may_receive.clear();
}

bool Agent::mayReceive(ClientSession& session, const std::string& event_space) {
  return router_.mayReceive(session, event_space);
}

}  // namespace ftb::agent
