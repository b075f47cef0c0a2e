#include "agent/transport/tree_wire.h"

#include <memory>
#include <type_traits>

namespace ftb::agent {
namespace {

using tree::Nanos;

template <typename Repeated>
std::vector<tree::NodeRef> nodesFrom(const Repeated& in) {
  std::vector<tree::NodeRef> out;
  out.reserve(in.size());
  for (const auto& n : in) out.push_back(fromProto(n));
  return out;
}

template <typename Repeated>
void nodesTo(const std::vector<tree::NodeRef>& in, Repeated* out) {
  for (const auto& n : in) toProto(n, out->Add());
}

template <typename Repeated>
tree::Interest interestFrom(const Repeated& in) {
  return tree::Interest(in.begin(), in.end());
}

template <typename Repeated>
void interestTo(const tree::Interest& in, Repeated* out) {
  for (const auto& s : in) *out->Add() = s;
}

template <typename Repeated>
tree::SeenVector seenFrom(const Repeated& in) {
  tree::SeenVector out;
  for (const auto& s : in) {
    tree::SeenEntry e{s.publisher(), s.high(), {}};
    for (const auto& h : s.holes()) e.holes.emplace_back(h.first(), h.last());
    out.push_back(std::move(e));
  }
  return out;
}

template <typename Repeated>
void rangesTo(const std::vector<tree::SeqRange>& in, Repeated* out) {
  for (const auto& [first, last] : in) {
    auto* r = out->Add();
    r->set_first(first);
    r->set_last(last);
  }
}

template <typename Repeated>
void seenTo(const tree::SeenVector& in, Repeated* out) {
  for (const auto& e : in) {
    auto* s = out->Add();
    s->set_publisher(e.publisher);
    s->set_high(e.high);
    rangesTo(e.holes, s->mutable_holes());
  }
}

tree::Residents residentsFrom(const proto::TreeResidents& in) {
  tree::Residents out{.clients = in.clients()};
  for (const auto& job : in.jobs()) {
    auto& ranks = out.ranks_by_job[job.job()];
    ranks.insert(ranks.end(), job.ranks().begin(), job.ranks().end());
  }
  return out;
}

void residentsTo(const tree::Residents& in, proto::TreeResidents* out) {
  out->set_clients(in.clients);
  for (const auto& [job, ranks] : in.ranks_by_job) {
    auto* j = out->add_jobs();
    j->set_job(job);
    j->mutable_ranks()->Add(ranks.begin(), ranks.end());
  }
}

}  // namespace

void toProto(const tree::NodeRef& node, proto::TreeNodeRef* out) {
  out->set_address(node.address);
  out->set_incarnation(node.incarnation);
  out->set_name(node.name);
  out->set_probe(node.probe);
}

tree::NodeRef fromProto(const proto::TreeNodeRef& node) {
  return {node.address(), node.incarnation(), node.name(), node.probe()};
}

void toProto(const tree::TreeMessage& message, proto::TreeMessage* out) {
  toProto(message.from, out->mutable_from());
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, tree::JoinRequest>) {
          auto* m = out->mutable_join_request();
          m->set_attempt(body.attempt);
          m->set_replay_window_ns(body.replay_window.count());
          if (!body.lost_parent.empty()) toProto(body.lost_parent, m->mutable_lost_parent());
          interestTo(body.interest, m->mutable_interest());
          seenTo(body.seen, m->mutable_seen());
        } else if constexpr (std::is_same_v<T, tree::JoinReply>) {
          auto* m = out->mutable_join_reply();
          m->set_attempt(body.attempt);
          switch (body.result) {
            case tree::JoinReply::Result::kAccepted: m->set_result(proto::TreeJoinReply::ACCEPTED); break;
            case tree::JoinReply::Result::kRedirect: m->set_result(proto::TreeJoinReply::REDIRECT); break;
            case tree::JoinReply::Result::kRefused: m->set_result(proto::TreeJoinReply::REFUSED); break;
          }
          m->set_reason(body.reason);
          nodesTo(body.redirect, m->mutable_redirect());
          nodesTo(body.path, m->mutable_path());
          interestTo(body.interest, m->mutable_interest());
          seenTo(body.seen, m->mutable_seen());
        } else if constexpr (std::is_same_v<T, tree::Heartbeat>) {
          auto* m = out->mutable_heartbeat();
          m->set_from_parent(body.from_parent);
          nodesTo(body.path, m->mutable_path());
          nodesTo(body.children, m->mutable_children());
          m->set_subtree_size(body.subtree_size);
          m->set_sent_at(body.sent_at);
          m->set_echo_sent_at(body.echo_sent_at);
          m->set_echo_age(body.echo_age);
          residentsTo(body.residents, m->mutable_residents());
        } else if constexpr (std::is_same_v<T, tree::InterestUpdate>) {
          auto* m = out->mutable_interest_update();
          interestTo(body.interest, m->mutable_interest());
          seenTo(body.seen, m->mutable_seen());
          m->set_replay_window_ns(body.replay_window.count());
        } else if constexpr (std::is_same_v<T, tree::EventBatch>) {
          auto* m = out->mutable_events();
          for (const auto& e : body.events) {
            auto* item = m->add_events();
            item->set_publisher(e.publisher);
            item->set_seq(e.seq);
            item->set_event_space(e.event_space);
            item->set_flood(e.flood);
            if (e.bytes) item->set_event(*e.bytes);
          }
          for (const auto& g : body.gone) {
            auto* gone = m->add_gone();
            gone->set_publisher(g.publisher);
            gone->set_event_space(g.event_space);
            rangesTo(g.ranges, gone->mutable_ranges());
          }
        } else if constexpr (std::is_same_v<T, tree::Leave>) {
          out->mutable_leave()->set_reason(body.reason);
        } else if constexpr (std::is_same_v<T, tree::Probe>) {
          out->mutable_probe()->set_nonce(body.nonce);
        } else if constexpr (std::is_same_v<T, tree::ProbeReply>) {
          auto* m = out->mutable_probe_reply();
          m->set_nonce(body.nonce);
          m->set_in_tree(body.in_tree);
          nodesTo(body.path, m->mutable_path());
        } else if constexpr (std::is_same_v<T, tree::MergeInvite>) {
          out->mutable_merge_invite();
        }
      },
      message.body);
}

Result<tree::TreeMessage> fromProto(const proto::TreeMessage& m) {
  if (m.from().address().empty()) return invalidArgument("a tree message must name its sender");
  tree::TreeMessage out{fromProto(m.from()), tree::MergeInvite{}};
  using B = proto::TreeMessage;
  switch (m.body_case()) {
    case B::kJoinRequest: {
      const auto& r = m.join_request();
      tree::JoinRequest j{r.attempt(), Nanos(r.replay_window_ns()), {}, interestFrom(r.interest()),
                          seenFrom(r.seen())};
      if (r.has_lost_parent()) j.lost_parent = fromProto(r.lost_parent());
      out.body = std::move(j);
      break;
    }
    case B::kJoinReply: {
      const auto& r = m.join_reply();
      tree::JoinReply j;
      j.attempt = r.attempt();
      j.result = r.result() == proto::TreeJoinReply::ACCEPTED   ? tree::JoinReply::Result::kAccepted
                 : r.result() == proto::TreeJoinReply::REDIRECT ? tree::JoinReply::Result::kRedirect
                                                                : tree::JoinReply::Result::kRefused;
      j.reason = r.reason();
      j.redirect = nodesFrom(r.redirect());
      j.path = nodesFrom(r.path());
      j.interest = interestFrom(r.interest());
      j.seen = seenFrom(r.seen());
      out.body = std::move(j);
      break;
    }
    case B::kHeartbeat: {
      const auto& h = m.heartbeat();
      out.body = tree::Heartbeat{h.from_parent(),  nodesFrom(h.path()),         nodesFrom(h.children()),
                                 h.subtree_size(), h.sent_at(),                 h.echo_sent_at(),
                                 h.echo_age(),     residentsFrom(h.residents())};
      break;
    }
    case B::kInterestUpdate: {
      const auto& u = m.interest_update();
      out.body = tree::InterestUpdate{interestFrom(u.interest()), seenFrom(u.seen()),
                                      Nanos(u.replay_window_ns())};
      break;
    }
    case B::kEvents: {
      tree::EventBatch batch;
      batch.events.reserve(m.events().events_size());
      for (const auto& item : m.events().events()) {
        batch.events.push_back({item.publisher(), item.seq(), item.event_space(), item.flood(),
                                std::make_shared<const std::string>(item.event())});
      }
      for (const auto& g : m.events().gone()) {
        tree::GoneEntry gone{g.publisher(), g.event_space(), {}};
        for (const auto& r : g.ranges()) {
          if (r.first() > r.last()) return invalidArgument("a gone range whose first is beyond its last");
          gone.ranges.emplace_back(r.first(), r.last());
        }
        batch.gone.push_back(std::move(gone));
      }
      out.body = std::move(batch);
      break;
    }
    case B::kLeave: out.body = tree::Leave{m.leave().reason()}; break;
    case B::kProbe: out.body = tree::Probe{m.probe().nonce()}; break;
    case B::kProbeReply:
      out.body = tree::ProbeReply{m.probe_reply().nonce(), m.probe_reply().in_tree(),
                                  nodesFrom(m.probe_reply().path())};
      break;
    case B::kMergeInvite: out.body = tree::MergeInvite{}; break;
    case B::BODY_NOT_SET: return invalidArgument("a tree message without a body");
  }
  return out;
}

}  // namespace ftb::agent
