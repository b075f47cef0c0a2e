#include "tests/sim/sim_trace.h"

#include <cstdio>
#include <cstdlib>

namespace ftb::sim {
namespace {

double seconds(tree::Nanos t) { return static_cast<double>(t.count()) / 1e9; }

}  // namespace

Trace::Trace() {
  if (const char* e = std::getenv("FTB_SIM_TRACE")) {
    on_ = true;
    event_ = e;
  }
}

void Trace::message(tree::Nanos now, const std::string& to, const tree::TreeMessage& m) const {
  if (!on_) return;
  const double t = seconds(now);
  const char* from = m.from.address.c_str();
  if (const auto* batch = std::get_if<tree::EventBatch>(&m.body)) {
    for (const auto& e : batch->events) {
      if (e.publisher + ":" + std::to_string(e.seq) == event_) {
        std::fprintf(stderr, "%.4f EVENT %s -> %s\n", t, from, to.c_str());
      }
    }
  } else if (std::holds_alternative<tree::JoinRequest>(m.body)) {
    std::fprintf(stderr, "%.4f JOINREQ %s -> %s\n", t, from, to.c_str());
  } else if (const auto* r = std::get_if<tree::JoinReply>(&m.body)) {
    std::fprintf(stderr, "%.4f JOINREPLY %s -> %s %d %s\n", t, from, to.c_str(),
                 static_cast<int>(r->result), r->reason.c_str());
  } else if (const auto* u = std::get_if<tree::InterestUpdate>(&m.body)) {
    std::fprintf(stderr, "%.4f INTEREST %s -> %s n=%zu window=%.3f seen=%zu\n", t, from, to.c_str(),
                 u->interest.size(), seconds(u->replay_window), u->seen.size());
  } else if (std::holds_alternative<tree::Probe>(m.body)) {
    std::fprintf(stderr, "%.4f PROBE %s -> %s\n", t, from, to.c_str());
  } else if (const auto* p = std::get_if<tree::ProbeReply>(&m.body)) {
    std::fprintf(stderr, "%.4f PROBEREPLY %s -> %s in_tree=%d root=%s\n", t, from, to.c_str(),
                 static_cast<int>(p->in_tree), p->path.empty() ? "-" : p->path.front().address.c_str());
  } else if (std::holds_alternative<tree::MergeInvite>(m.body)) {
    std::fprintf(stderr, "%.4f MERGEINVITE %s -> %s\n", t, from, to.c_str());
  } else if (const auto* l = std::get_if<tree::Leave>(&m.body)) {
    std::fprintf(stderr, "%.4f LEAVE %s -> %s %s\n", t, from, to.c_str(), l->reason.c_str());
  }
}

void Trace::fault(tree::Nanos now, const char* what, const std::string& address) const {
  if (on_) std::fprintf(stderr, "%.4f %s %s\n", seconds(now), what, address.c_str());
}

void Trace::topology(const std::string& address, const tree::TopologyChange& change) const {
  if (!on_) return;
  std::fprintf(stderr, "TOPO %s kind %d subject %s repair %.0f ms %s\n", address.c_str(),
               static_cast<int>(change.kind), change.subject.address.c_str(),
               seconds(change.repair_time) * 1e3, change.detail.c_str());
}

bool debugRequested() { return std::getenv("FTB_SIM_DEBUG") != nullptr; }

}  // namespace ftb::sim
