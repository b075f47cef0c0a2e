// Policy rules: "events matching this filter -> this action". One rule per
// line, `<filter> -> <action> [argument]`; `#` starts a comment. Filters use
// the subscription syntax of docs/FILTERS.md.
//
//   auto rules = parseRules("event_name=FTB_IPMI_FANFAIL -> migrate\n");
//   if (!rules) std::cerr << rules.status().toString();   // names the line
//
// Actions (README.md "Rules"):
//   checkpoint                 whole-job checkpoint (FTB_CHECKPOINT, wait for every rank)
//   migrate                    move the ranks of the event's node to a spare
//   spare                      the event's node is healthy again: it becomes a spare
//   checkpoint_job_if_share>X  whole-job checkpoint once more than share X (0..1) of the
//                              job's nodes have matched this rule; below it the next rule
//                              is tried
//   relaunch                   a rank or node died: relaunch on survivors plus a spare
//   replace                    a rank is hung (FTB_MPI_RANK_HUNG): end it (FTB_TERMINATE_RANK);
//                              its death then recovers as any death does
//   drain / resume             only the resource manager's drain / resume of the node
//   ignore                     stop here, do nothing
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/filter.h"
#include "client/status.h"

namespace ftb::launcher {

// kRestart: end the run and relaunch it at once on the same nodes (a rank died
// on a node that lives: every rank restores from its own memory).
// kReplace: end one hung rank through the backplane; the death that follows is
// recovered as any other (run-through, or a restart in place).
enum class Action { kCheckpoint, kMigrate, kSpare, kCheckpointIfShare, kRelaunch, kRestart, kReplace, kDrain, kResume,
                    kIgnore };

std::string_view actionName(Action action);

struct Rule {
  int line = 0;          // 1-based line in its source, for messages and FTB_DECISION
  std::string text;      // the rule as written (trimmed)
  Filter filter;
  Action action = Action::kIgnore;
  double share = 0;      // kCheckpointIfShare: strictly more than this share of nodes
};

// kInvalidArgument naming the line and what is wrong (bad filter, unknown
// action, share outside 0..1, missing "->").
Result<std::vector<Rule>> parseRules(std::string_view text);

// The embedded default rule set (README.md "Rules" documents it).
extern const std::string_view kDefaultRules;

}  // namespace ftb::launcher
