#include "components/launcher_bridge/rules.h"

#include <cstdlib>

namespace ftb::launcher {

const std::string_view kDefaultRules = R"(# ftb-run default rules: first matching rule wins (README.md "Rules")
# An operator's or a timer's request for a checkpoint.
event_space=FTB.JL.*, event_name=FTB_CHECKPOINT_REQUEST -> checkpoint
# The room is heating up: over-temperature on more than half of the job's nodes.
event_space=FTB.IPMI.*, event_name=FTB_IPMI_OVERTEMP -> checkpoint_job_if_share>0.5
# Hardware warnings on a node that runs ranks: move them to a spare.
event_space=FTB.IPMI.*, event_name=FTB_IPMI_FANFAIL|FTB_IPMI_OVERTEMP -> migrate
event_space=FTB.IB.*, event_name=FTB_IB_PORT_DEGRADED|FTB_IB_PORT_ERR -> migrate
# Healthy again: a node without ranks becomes a spare; a drained one, its ranks still there, READY.
event_space=FTB.IPMI.*, event_name=FTB_IPMI_NORMAL -> spare
# A rank died on a node that lives (its last will; ftb-run passes it on only when
# every job node's agent reported its ranks' deaths): restart in place from memory.
event_space=FTB.MPI.*, event_name=FTB_MPI_PROCS_DEAD -> restart
# A rank makes no progress in its own code (its runtime's watchdog): end it, and
# its death recovers as above (or through the run-through with --run-through).
event_space=FTB.MPI.*, event_name=FTB_MPI_RANK_HUNG -> replace
# A node's agent vanished from the tree with the node (agents are named after their node):
# one neighbour announces it, with the ranks that lived there and a correlation
# id that the relaunch carries (the per-link FTB_AGENT_CHILD_LOST / _PARENT_LOST
# stay for whoever wants them).
event_space=FTB.AGENT, event_name=FTB_NODE_LOST -> relaunch
)";

std::string_view actionName(Action action) {
  switch (action) {
    case Action::kCheckpoint: return "checkpoint";
    case Action::kMigrate: return "migrate";
    case Action::kSpare: return "spare";
    case Action::kCheckpointIfShare: return "checkpoint_job_if_share";
    case Action::kRelaunch: return "relaunch";
    case Action::kRestart: return "restart";
    case Action::kReplace: return "replace";
    case Action::kDrain: return "drain";
    case Action::kResume: return "resume";
    case Action::kIgnore: return "ignore";
  }
  return "?";
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

Status parseAction(std::string_view word, Rule& rule) {
  static constexpr std::string_view kSharePrefix = "checkpoint_job_if_share>";
  if (word.starts_with(kSharePrefix)) {
    std::string number(word.substr(kSharePrefix.size()));
    char* end = nullptr;
    double share = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || share < 0 || share >= 1) {
      return invalidArgument("share '" + number + "' must be a number in [0, 1)");
    }
    rule.action = Action::kCheckpointIfShare;
    rule.share = share;
    return {};
  }
  for (Action a : {Action::kCheckpoint, Action::kMigrate, Action::kSpare, Action::kRelaunch,
                   Action::kRestart, Action::kReplace, Action::kDrain, Action::kResume, Action::kIgnore}) {
    if (word == actionName(a)) {
      rule.action = a;
      return {};
    }
  }
  return invalidArgument("unknown action '" + std::string(word) +
                         "' (checkpoint, migrate, spare, checkpoint_job_if_share>X, relaunch, "
                         "restart, drain, resume, ignore)");
}

}  // namespace

Result<std::vector<Rule>> parseRules(std::string_view text) {
  std::vector<Rule> rules;
  int line_no = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) {
      return invalidArgument("rule line " + std::to_string(line_no) + ": " + why);
    };
    std::size_t arrow = line.find("->");
    if (arrow == std::string_view::npos) return fail("missing '->' between filter and action");
    Rule rule;
    rule.line = line_no;
    rule.text = std::string(line);
    auto filter = Filter::parse(trim(line.substr(0, arrow)));
    if (!filter.ok()) return fail("filter: " + filter.status().message());
    rule.filter = std::move(*filter);
    std::string_view action = trim(line.substr(arrow + 2));
    if (action.empty()) return fail("missing action after '->'");
    if (action.find_first_of(" \t") != std::string_view::npos) {
      return fail("one action per rule, got '" + std::string(action) + "'");
    }
    if (Status s = parseAction(action, rule); !s.ok()) return fail(s.message());
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace ftb::launcher
