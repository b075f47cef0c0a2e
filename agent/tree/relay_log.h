// What an agent remembers of the events that passed through it: per publisher,
// the sequences it has (a range with holes, so a duplicate a repair causes is
// dropped while a late gap-filler is let through), and a bounded window of
// recent events, replayed to a side of the tree that missed them while a link
// was down.
// The window is bounded by count, by memory (bytes) and by age. It keeps each
// event compactly: a reference to the serialized bytes the agent shares with its
// history and delivery path (never a copy, never a parsed event), the
// publisher's name and namespace once per publisher, the link's address once.
// Threading: one thread (the agent's event loop, or the simulator) owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/tree/interest.h"
#include "agent/tree/tree_messages.h"

namespace ftb::tree {

// What a replay or fill sends: the retained events the other side lacks,
// oldest first, and what it lacks that this agent has seen but no longer
// retains (it will never get those: "gone").
struct Replay {
  std::vector<TreeEvent> events;
  std::vector<GoneEntry> gone;
};

class RelayLog {
 public:
  // A retained event counts bytes->size() plus a fixed overhead against
  // max_bytes (kRetainedOverhead); events without bytes (the simulator's) the
  // overhead only.
  static constexpr std::size_t kRetainedOverhead = 136;  // record 72 + buffer control block and string 64
  RelayLog(std::size_t max_events, Nanos max_age, std::size_t max_bytes = SIZE_MAX)
      : max_events_(max_events), max_bytes_(max_bytes), max_age_(max_age) {}
  // Not copied: a copy's cached sequence would point into the original's map.
  // A move keeps the map's nodes, and so the cache, valid.
  RelayLog(const RelayLog&) = delete;
  RelayLog& operator=(const RelayLog&) = delete;
  RelayLog(RelayLog&&) = default;
  RelayLog& operator=(RelayLog&&) = default;

  // Records an event that arrived from `from` ("" for a local publisher).
  // False when it is a duplicate. One older than the first seen is a replay
  // for a side that lacks it: admitted, and what lies between becomes a hole
  // (so the rest of that replay is admitted too).
  bool admit(const TreeEvent& event, const std::string& from, Nanos now);
  void prune(Nanos now);

  // What this agent has of each publisher whose namespace `interest` covers,
  // extended with what the side beyond (`beyond`, as it reported) still needs:
  // its gaps, and the stretch between its highest and the first this agent saw.
  SeenVector report(const InterestMatcher& interest, const SeenVector& beyond) const;

  // Retained events the other side of a link lacks, oldest first: those its
  // interest covers, that did not come from it, beyond its highest or in its
  // gaps; events of publishers it never saw if they arrived within `window`.
  // Gone: what it lacks (beyond its highest or in its gaps) of publishers it
  // reported that this agent has seen but no longer retains.
  // Nothing when the window is zero (no repair).
  Replay missing(const InterestMatcher& interest, const SeenVector& their_seen, Nanos window,
                 Nanos now, const std::string& not_from) const;

  // Retained events in the holes of `wanted` (publishers it lists only),
  // oldest first, and as gone the holes this agent has seen but no longer
  // retains. Both are taken out of `wanted`'s holes: what remains this agent
  // never saw.
  Replay fill(SeenVector& wanted) const;

  // Records gone sequences as seen (they will never come; a late copy is
  // then dropped as a duplicate). Returns those of `gone.ranges` not seen
  // before: what this side newly learns it will never get.
  std::vector<SeqRange> settle(const GoneEntry& gone, const std::string& from, Nanos now);
  // The link a publisher's events last came from ("" for a local one, none
  // for a publisher never seen): the way toward the publisher, where a gap
  // can be filled.
  std::optional<std::string> upstream(const std::string& publisher) const;

  std::size_t retained() const { return events_.size(); }
  // What the retained events count against max_bytes.
  std::size_t retainedBytes() const { return bytes_; }
  uint64_t duplicates() const { return duplicates_; }

 private:
  // A publisher's name and namespace, shared by all its retained events.
  struct Source {
    std::string publisher;
    std::string event_space;
  };
  struct Sequence {
    uint64_t low = 0;  // first sequence seen (replays may lower it)
    uint64_t high = 0;
    std::vector<SeqRange> holes;
    std::string event_space;
    std::string from;  // the link the last one came from
    Nanos updated{};
    std::shared_ptr<const Source> source;  // for its retained events
  };
  // One retained event: about 64 bytes besides the shared bytes.
  struct Entry {
    std::shared_ptr<const Source> source;
    std::shared_ptr<const std::string> from;  // interned link address ("" = local)
    std::shared_ptr<const std::string> bytes;
    uint64_t seq = 0;
    Nanos arrived{};
    bool flood = false;
    TreeEvent toEvent() const { return {source->publisher, seq, source->event_space, flood, bytes}; }
  };
  static std::size_t costOf(const Entry& e) {
    return (e.bytes ? e.bytes->size() : 0) + kRetainedOverhead;
  }
  void retain(Sequence& s, const TreeEvent& event, const std::string& from, Nanos now);
  void popOldest();
  std::shared_ptr<const std::string> internFrom(const std::string& from);
  bool admitSequence(Sequence& s, uint64_t seq);
  // The part of `wanted` that publisher `s` has seen but that is not in `retained` (sorted).
  static std::vector<SeqRange> goneOf(const Sequence& s, const std::vector<SeqRange>& wanted,
                                      const std::vector<uint64_t>& retained);
  std::size_t max_events_;
  std::size_t max_bytes_;
  Nanos max_age_;
  std::unordered_map<std::string, Sequence> sequences_;
  // admit()'s last publisher (events come in runs from one, and its key is
  // long to hash): pointers into sequences_, reset where it loses entries.
  Sequence& sequenceOf(const std::string& publisher);
  const std::string* last_publisher_ = nullptr;
  Sequence* last_sequence_ = nullptr;
  std::deque<Entry> events_;  // oldest first; records in blocks, no node per event
  std::size_t bytes_ = 0;     // costOf() summed over events_
  // Link addresses the retained events came from, one string each; the last
  // one used is cached (events come in runs from one link).
  std::unordered_map<std::string, std::shared_ptr<const std::string>> from_names_;
  std::shared_ptr<const std::string> last_from_;
  uint64_t duplicates_ = 0;
};

// Range helpers (sorted, disjoint inclusive ranges).
bool contains(const std::vector<SeqRange>& ranges, uint64_t value);
void addRange(std::vector<SeqRange>& ranges, SeqRange range);
void removeValue(std::vector<SeqRange>& ranges, uint64_t value);
// `a` without what `b` covers, and what both cover (no cap on the count).
std::vector<SeqRange> subtractRanges(const std::vector<SeqRange>& a, const std::vector<SeqRange>& b);
std::vector<SeqRange> intersectRanges(const std::vector<SeqRange>& a, const std::vector<SeqRange>& b);

}  // namespace ftb::tree
