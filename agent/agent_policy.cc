// The agent's side of the namespace policy: what a session may do, decided at
// Hello and again after a reload (agent_lifecycle.cc); what a peer may see is
// Admission::maySee, asked by live delivery, replays, history and loss notices.
#include <spdlog/spdlog.h>

#include "agent/agent.h"

namespace ftb::agent {

void Agent::applyPolicy(ClientSession& session) {
  if (session.principal.peer && policy_.needsGroups() && session.principal.groups.empty()) {
    session.principal.groups = groupsOf(session.principal.peer->uid);
  }
  session.may_publish =
      policy_.allows(NamespacePolicy::Action::kPublish, session.event_space, session.principal);
  session.may_receive.clear();
}

bool Agent::mayReceive(ClientSession& session, const std::string& event_space) {
  if (admission_.everyoneSeesEverything()) return true;
  auto [it, fresh] = session.may_receive.try_emplace(event_space, false);
  if (fresh) {
    it->second = admission_.maySee(session.principal, event_space);
    if (!it->second) {
      log_.warn("policy-subscribe", "client '{}' ({}) may not receive events of {}: withheld by the "
                "namespace policy", session.client_name,
                session.peer ? "uid " + std::to_string(session.peer->uid) : std::string("remote"),
                event_space);
    }
  }
  return it->second;
}

}  // namespace ftb::agent
