// Subscription filters: parse once, match many events. Grammar: docs/FILTERS.md.
//
//   auto f = ftb::Filter::parse("event_space=FTB.MPI.*, severity>=warning");
//   if (f && f->matches(event)) ...
//
// FTB 0.5 syntax is accepted unchanged: comma-separated key=value pairs with keys
// event_space, severity, jobid, host_name, event_name, client_name; "all" as a
// wildcard for a field and for a namespace level; "" matches everything.
// Extensions: namespace globs (FTB.MPI.*), severity comparisons (>=, >, <=, <, !=),
// several values for one key (a|b, or the key repeated: OR within a key, AND
// across keys).
// Thread-safety: a parsed Filter is immutable; matches() may be called from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/status.h"
#include "proto/ftb.pb.h"

namespace ftb {

class Filter {
 public:
  // kInvalidArgument naming the offending key or value.
  static Result<Filter> parse(std::string_view text);

  bool matches(const proto::Event& event) const;
  // Whether the event_space part alone accepts `space` (other keys ignored):
  // agents route between themselves on this, and finish matching at the end.
  bool matchesEventSpace(std::string_view space) const;
  const std::string& text() const { return text_; }
  // The event_space elements of text() alone ("" when there are none): a filter
  // that accepts what matchesEventSpace() accepts.
  const std::string& eventSpaceText() const { return event_space_text_; }

  // What an index may key this filter on (agent/routing/subscription_index.h). Each
  // event_space alternative the filter accepts, as its leading literal segments
  // (upper case, dotted); `exact` when the alternative is that literal and
  // nothing more. An event space the filter accepts equals an exact key or
  // starts with a non-exact key's segments. nullopt: no such key bounds the
  // filter (no event_space clause, "all", or an alternative opening with a glob),
  // so an index must check it against every event.
  struct SpaceKey {
    std::string prefix;
    bool exact = false;
  };
  std::optional<std::vector<SpaceKey>> eventSpaceKeys() const;
  // The event names (upper case) the filter accepts when its event_name clause
  // lists only literal names; nullopt when any name may match (no clause, "all",
  // a glob, only exclusions).
  std::optional<std::vector<std::string>> eventNameKeys() const;

  struct Clause;  // one key's alternatives; defined in filter.cc

 private:
  std::string text_;
  std::string event_space_text_;
  std::vector<std::shared_ptr<const Clause>> clauses_;  // all must match
};

}  // namespace ftb
