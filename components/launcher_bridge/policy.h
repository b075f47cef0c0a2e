// The decision logic: one event in, at most one Decision out, with the node
// table updated to the plan. No processes, no backplane: the launcher turns
// Decisions into events and process actions (launcher.h).
//
//   Policy policy(std::move(rules), table, "JOB7");
//   if (auto d = policy.decide(event)) launcher.execute(*d);
//
// Rules are tried in order; the first that matches the event AND applies
// fires. A rule that matches but does not apply (migrate on a node without
// ranks and no spare, a share not yet reached ...) lets the next one try; the
// reason is kept in Decision::skipped so nothing is dropped silently.
//
// Threading: not synchronised; the launcher's event loop owns it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/event.h"
#include "components/launcher_bridge/node_table.h"
#include "components/launcher_bridge/rules.h"

namespace ftb::launcher {

struct Decision {
  Action action = Action::kIgnore;  // what to do (kIgnore: nothing applied)
  int rule_line = 0;                // 0: no rule fired
  std::string rule_text;
  std::string node;    // the node the event is about ("" for job-wide events)
  std::string target;  // kMigrate / kRelaunch: the node that takes the ranks
  std::string corr;    // correlation id of this recovery
  std::vector<int> ranks;            // the ranks that move (kReplace: the hung one)
  long pid = 0;                      // kReplace: the hung process (0 = whichever holds the rank)
  std::vector<std::string> skipped;  // rules that matched but did not apply, and why
};

class Policy {
 public:
  Policy(std::vector<Rule> rules, NodeTable& table, std::string job_id);

  // nullopt: no rule's filter matches the event. Otherwise the decision
  // (action kIgnore when matching rules all declined; see skipped).
  std::optional<Decision> decide(const Event& event);

  // The node an event is about: tag `host`, else tag `node`, else the
  // payload's first word (FTB.IPMI convention); for FTB.AGENT events the
  // agent named by peer=<name>@<address>; "" when none.
  static std::string nodeOf(const Event& event);

 private:
  // Whether `rule` applies to this event; fills `d` when it does, else says why not.
  bool apply(const Rule& rule, const Event& event, Decision& d, std::string& why_not);
  bool retireSpare(const NodeInfo* node, Decision& d);
  std::string newCorr();

  std::vector<Rule> rules_;
  NodeTable& table_;
  std::string job_id_;
  int next_corr_ = 1;
  // checkpoint_job_if_share rules: nodes that matched, and whether the share is
  // above the threshold already (fires once per crossing).
  std::map<int, std::set<std::string>> share_nodes_;
  std::set<int> share_fired_;
};

}  // namespace ftb::launcher
