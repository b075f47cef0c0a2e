// SubscriptionIndex: which subscriptions may match an event, without scanning
// them all. Subscriptions are keyed by the event-space keys their Filter
// exposes (Filter::eventSpaceKeys): exact namespaces in one table, literal
// namespace prefixes (FTB.MPI.*, FTB.MPI.**) in another; a filter with no such
// key but literal event names (event_name=A|B) is filed by name; filters nothing
// bounds ("all", "", a leading glob) sit in an always-checked list. An event is looked
// up by its namespace and each of its dotted prefixes, and only those candidates
// run Filter::matches, which stays the single source of truth.
//
//   SubscriptionIndex index;
//   index.add(session, 7, filter);
//   for (const auto& m : index.matching(event)) deliver(m.owner, m.id);
//
// Threading: not thread-safe; the agent's event-loop thread alone owns and
// calls it (as it does ClientSession).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "client/filter.h"
#include "proto/ftb.pb.h"

namespace ftb::agent {

class SubscriptionIndex {
 public:
  // Who holds a subscription (the agent passes its ClientSession*); never dereferenced.
  using Owner = const void*;
  struct Match {
    Owner owner = nullptr;
    uint32_t id = 0;
    bool operator==(const Match&) const = default;
    auto operator<=>(const Match&) const = default;
  };

  // Adds (owner, id), replacing a subscription already held under that pair.
  void add(Owner owner, uint32_t id, const Filter& filter);
  // No-op when (owner, id) is not held.
  void remove(Owner owner, uint32_t id);
  void removeOwner(Owner owner);

  // Every held subscription whose filter matches `event`, ordered by owner then
  // id (so one owner's ids are contiguous and ascending, as in its std::map).
  std::vector<Match> matching(const proto::Event& event) const;
  // The same into `out` (cleared first): the router reuses one buffer per event.
  void matching(const proto::Event& event, std::vector<Match>& out) const;
  // How many filters matching() would evaluate for such an event.
  std::size_t candidateCount(std::string_view event_space, std::string_view event_name = {}) const;
  std::size_t size() const { return held_.size(); }

 private:
  struct MatchHash {
    std::size_t operator()(const Match& m) const {
      return std::hash<Owner>()(m.owner) * 31 + m.id;
    }
  };
  struct Held {
    Filter filter;
    std::vector<std::string> exact_keys, prefix_keys, name_keys;  // where it is filed; none: always_
  };
  using Bucket = std::unordered_set<Match, MatchHash>;
  // Looked up by string_view: an event's namespace prefixes are not copied.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
  };
  using Table = std::unordered_map<std::string, Bucket, KeyHash, std::equal_to<>>;

  // Calls visit(match) for each candidate of such an event (a candidate once per key).
  template <typename Visit>
  void forEachCandidate(std::string_view event_space, std::string_view event_name, Visit&& visit) const;

  std::unordered_map<Match, Held, MatchHash> held_;
  std::unordered_map<Owner, std::unordered_set<uint32_t>> ids_by_owner_;
  Table exact_;    // upper-case namespace
  Table prefix_;   // upper-case leading segments
  Table by_name_;  // upper-case event name
  Bucket always_;
};

}  // namespace ftb::agent
