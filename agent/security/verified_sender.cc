#include "agent/security/verified_sender.h"

namespace ftb::agent {

void stampSender(proto::VerifiedSender& out, const std::string& agent, const Principal& who) {
  out.set_agent(agent);
  if (who.peer) out.set_pid(who.peer->pid);
  out.set_credentials_known(who.peer.has_value());
  if (auto uid = who.uid()) {
    out.set_uid(*uid);
    out.set_uid_known(true);
  }
}

}  // namespace ftb::agent
