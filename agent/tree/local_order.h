// Puts events from other agents back in publish order before they reach local
// subscribers. After a repair a replay can fill a gap after newer events have
// arrived by the new path; those wait here (up to a timeout) for the gap, and
// the tree asks upstream for what is missing meanwhile (see gaps()).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/tree/tree_messages.h"

namespace ftb::tree {

class LocalOrder {
 public:
  explicit LocalOrder(Nanos hold_timeout) : hold_timeout_(hold_timeout) {}

  // Events of one publisher that were never filled in. A publisher publishes
  // in one event space, so the space of what waited names that of the gap.
  struct Loss {
    std::string event_space;
    uint64_t events = 0;
    LossCause cause = LossCause::kNoLongerRetained;
  };
  // Appends to `ready` what can be delivered now, in order. An event behind
  // the next one due is dropped: it predates local interest, or its gap was
  // given up on and what followed it has been delivered already. Returns the
  // gone sequences (see settle) it stepped over: to report before `ready`.
  std::vector<Loss> arrive(const TreeEvent& event, Nanos now, std::vector<TreeEvent>& ready);
  // Sequences of a publisher that will never come (no agent retains them any
  // more): once the stream reaches them they are counted as lost at once
  // (those already due now, even with nothing after them, such as the end
  // of a stream). Returns those losses; what waited behind them goes to `ready`.
  // A publisher not delivered here yet is ignored: nothing of it was due.
  std::vector<Loss> settle(const GoneEntry& gone, std::vector<TreeEvent>& ready);
  // Gives up on gaps held longer than the timeout, or than `stretched` when
  // that is longer (the caller's allowance for a starved machine, whose fills
  // are late but still come): what waited behind them is appended to `ready`;
  // returns what was never filled in, per publisher.
  std::vector<Loss> expire(Nanos now, Nanos stretched, std::vector<TreeEvent>& ready);
  // The gaps open for at least `min_age`, per publisher: `high` is the last
  // event waiting, `holes` what is missing below it.
  SeenVector gaps(Nanos now, Nanos min_age) const;
  std::size_t held() const;

 private:
  struct Stream {
    uint64_t next = 0;  // next sequence due
    std::map<uint64_t, TreeEvent> waiting;
    std::vector<SeqRange> gone;  // beyond `next`, sorted: will never come
    std::string event_space;
    Nanos waiting_since{0};
    Nanos updated{0};
  };
  // Releases what is due, stepping over gone sequences; returns how many of those.
  uint64_t drain(Stream& s, std::vector<TreeEvent>& ready);
  Nanos hold_timeout_;
  std::unordered_map<std::string, Stream> streams_;
};

}  // namespace ftb::tree
