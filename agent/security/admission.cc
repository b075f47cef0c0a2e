#include "agent/security/admission.h"

#include <unordered_map>

#include <array>

namespace ftb::agent {
namespace {

using B = proto::Envelope;

// The table. Keep docs/SECURITY.md ("Who may do what") in step with it.
constexpr std::array<AdmissionRule, 12> kTable{{
    // A client's session: Hello opens it, the rest needs it.
    {B::kHello, "Hello", kAnyClient, false, Check::kOriginOwner},
    {B::kDeclare, "Declare", kAnyClient, true, Check::kNone},
    {B::kPublish, "Publish", kAnyClient, true, Check::kPublishPolicy},
    {B::kSubscribe, "Subscribe", kAnyClient, true, Check::kSubscribePolicy},
    {B::kUnsubscribe, "Unsubscribe", kAnyClient, true, Check::kNone},
    {B::kHeartbeat, "Heartbeat", kAnyClient, true, Check::kNone},
    {B::kGoodbye, "Goodbye", kAnyClient, false, Check::kNone},
    // The control API (ftbctl): no session needed.
    {B::kStatusRequest, "StatusRequest", kAnyClient, false, Check::kNone},
    {B::kClientsRequest, "ClientsRequest", kAnyClient, false, Check::kNone},
    {B::kHistoryQuery, "HistoryQuery", kAnyClient, false, Check::kSubscribePolicy},
    {B::kTreeQuery, "TreeQuery", kAnyClient, false, Check::kNone},
    // Between agents only: a tree message carries events under any publisher's
    // name with the sender another agent verified, so it must come from an agent.
    {B::kTree, "Tree", kAgentLink, false, Check::kNone},
}};

std::string kindsText(uint8_t kinds) {
  std::string out;
  auto add = [&](uint8_t bit, const char* text) {
    if ((kinds & bit) == 0) return;
    if (!out.empty()) out += ", ";
    out += text;
  };
  add(kLocalClient, "local clients");
  add(kRemoteClient, "remote clients");
  add(kCurveClient, "Curve-authenticated clients");
  add(kAgentLink, "other agents");
  return out.empty() ? "nobody" : out;
}

std::string senderText(const Sender& s) {
  if (s.local) return "a local client (uid " + std::to_string(s.local->uid) + ")";
  if (!s.curve_key.empty()) return "a Curve client (key " + s.curve_key + ")";
  return "a remote client" + (s.address.empty() ? std::string() : " (" + s.address + ")");
}

}  // namespace

OriginOwner OriginOwner::of(const Sender& sender) {
  OriginOwner owner;
  if (sender.local) {
    owner.uid = sender.local->uid;
  } else if (!sender.curve_key.empty()) {
    owner.curve_key = sender.curve_key;
  } else {
    owner.address = sender.address;
  }
  return owner;
}

std::string OriginOwner::describe() const {
  if (uid) return "uid " + std::to_string(*uid);
  if (!curve_key.empty()) return "Curve key " + curve_key;
  return "remote " + (address.empty() ? std::string("(unknown address)") : address);
}

std::span<const AdmissionRule> Admission::table() { return kTable; }

const AdmissionRule* Admission::rule(proto::Envelope::BodyCase type) {
  for (const auto& r : kTable) {
    if (r.type == type) return &r;
  }
  return nullptr;
}

uint8_t Admission::kindsOf(const Sender& s) const {
  if (s.local) return kLocalClient;
  uint8_t kinds = s.curve_key.empty() ? kRemoteClient : kCurveClient;
  // With Curve on, agents link with the key they share (docs/SECURITY.md);
  // a client holding another authorized key is no agent.
  const bool agent_key = agents_curve_key_.empty() ? any_tree_peer_ : s.curve_key == agents_curve_key_;
  if (!s.has_session && agent_key) kinds |= kAgentLink;
  return kinds;
}

Status Admission::admit(proto::Envelope::BodyCase type, const Sender& sender) const {
  const AdmissionRule* r = rule(type);
  if (r == nullptr) {
    return notFound("message type " + std::to_string(type) + " is not a request this agent serves");
  }
  if ((kindsOf(sender) & r->senders) == 0) {
    std::string why = std::string(r->name) + " is accepted only from " + kindsText(r->senders) +
                      ", not from " + senderText(sender);
    if (r->senders == kAgentLink && sender.has_session) why += " holding a client session";
    if (r->senders == kAgentLink && agents_curve_key_.empty() && !any_tree_peer_) {
      why += "; this agent has no cluster key (curve-key-file), so it admits no agent";
    }
    return Status(Code::kPermissionDenied, why + " (docs/SECURITY.md)");
  }
  if (r->needs_session && !sender.has_session) {
    return Status(Code::kUnauthenticated,
                  "this agent has no session for you (it may have restarted): send Hello first");
  }
  return {};
}

bool Admission::maySee(const Principal& who, const std::string& event_space) const {
  return policy_.allows(NamespacePolicy::Action::kSubscribe, event_space, who);
}

bool Admission::everyoneSeesEverything() const {
  return policy_.openToAll(NamespacePolicy::Action::kSubscribe);
}

Status Admission::mayResume(const OriginOwner& owner, const Sender& claimant) {
  bool same = false;
  if (owner.uid) {
    same = claimant.local && claimant.local->uid == *owner.uid;
  } else if (!owner.curve_key.empty()) {
    same = !claimant.local && claimant.curve_key == owner.curve_key;
  } else {
    same = !claimant.local && claimant.curve_key.empty() && claimant.address == owner.address;
  }
  if (same) return {};
  return Status(Code::kPermissionDenied,
                "Hello refused: this origin (host, pid, process start, instance) belongs to a "
                "session of another identity on this agent; a client may resume only its own "
                "session (" + senderText(claimant) + " is not its owner; docs/SECURITY.md)");
}

Principal Admission::principalOf(const Sender& sender) const {
  Principal p;
  p.peer = sender.local;
  p.curve_authenticated = sender.isCurve();
  p.curve_uid = sender.curve_uid;  // set only for TCP peers whose Curve key is mapped
  return p;
}

std::string_view namespaceToldOf(const proto::Event& event) {
  if (event.event_space() != kAgentEventSpace) return {};  // names arrive upper-cased
  auto it = event.tags().find("space");
  return it == event.tags().end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace ftb::agent
