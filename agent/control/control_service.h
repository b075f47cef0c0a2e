// ControlService: the agent's answers to the control API that ftbctl talks to
// (status, clients, history, tree). Given a request envelope and who sent it,
// it builds the reply envelope (or an Error) from the agent's state; the loop
// sends it. The history query answers to the same subscribe check as live
// delivery and the subscribe-time replay (Admission::maySee through
// visibleTo): a querier sees only what it could subscribe to. Status and
// clients show another user's clients only to whom may subscribe to their
// namespaces (root sees all).
//
//   ControlService control({config, sessions, history, admission, policy, counters,
//                           endpoints, clock, started});
//   if (ControlService::serves(envelope.body_case())) reply(id, control.answer(envelope, sender));
//
// The state of parts the agent may run without (Curve, the tree) comes in
// through the hooks; unset hooks leave those fields empty.
// Threading: not thread-safe; the agent's event-loop thread alone calls it.
// It holds references to the agent's state and reads it on every answer.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "agent/config/config.h"
#include "agent/routing/event_history.h"
#include "agent/security/admission.h"
#include "agent/security/namespace_policy.h"
#include "agent/sessions/session_table.h"
#include "client/clock.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

class ControlService {
 public:
  struct Sources {
    const AgentConfig& config;  // the agent's name
    const SessionTable& sessions;
    const EventHistory& history;
    const Admission& admission;
    const NamespacePolicy& policy;  // whether groups must be looked up
    const proto::Counters& counters;
    const std::vector<std::string>& endpoints;
    const Clock& clock;
    std::chrono::steady_clock::time_point started;
  };
  struct Hooks {
    std::function<void(proto::StatusReply&)> add_auth;  // Curve refusals into a status reply
    // The tree's state and links; false (or unset) when this agent is in no
    // tree: the answer then says "off" or "disabled" (treeDisabledNotice).
    std::function<bool(proto::TreeInfo*)> fill_tree;
  };

  explicit ControlService(Sources sources, Hooks hooks = {})
      : s_(std::move(sources)), hooks_(std::move(hooks)) {}

  // Whether `type` is a control request this service answers.
  static bool serves(proto::Envelope::BodyCase type);
  // The reply to `request` (whose type serves()), with its request_id.
  proto::Envelope answer(const proto::Envelope& request, const Sender& sender) const;

 private:
  proto::Envelope status(const proto::Envelope& request, const Sender& sender) const;
  proto::Envelope clients(const proto::Envelope& request, const Sender& sender) const;
  // Who the policy sees in `sender`, groups looked up when the policy needs them.
  Principal principalOf(const Sender& sender) const;
  // Need to know: whether `who` may learn of `session` (its name, namespace,
  // origin, counts): root, the session's own uid, and whoever may subscribe to
  // its namespace.
  bool mayKnowOf(const Principal& who, const ClientSession& session) const;
  proto::Envelope history(const proto::Envelope& request, const Sender& sender) const;
  proto::Envelope tree(const proto::Envelope& request) const;

  Sources s_;
  Hooks hooks_;
};

}  // namespace ftb::agent
