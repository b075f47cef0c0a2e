// ftbctl tree: the live topology of the agents' tree, crawled from the root
// that the agent at --agent names, as an indented table, JSON or Graphviz.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/agent_connection.h"
#include "cli/command.h"
#include "cli/tree_crawl.h"
#include "cli/tree_output.h"
#include "cli/tree_query.h"

namespace ftb::cli {
namespace {

constexpr char kTreeHelp[] =
    "Show the live tree of agents: asks the agent at --agent for its root, then every agent\n"
    "from the root down (one request each, --timeout-ms per level of the tree) and prints\n"
    "one line per agent, indented under its parent: address, state, health (ok, silent,\n"
    "unreachable, lost-events, disagrees, cycle), latency and silence of the link from its\n"
    "parent, subtree size, clients and repairs. Inconsistencies go to stderr.\n"
    "Exits 5 when some agents did not answer or the agents disagree about the tree.";

// The lines an operator must see whatever the output form.
void reportTrouble(const TreeCrawl& crawl) {
  for (const CrawledAgent& a : crawl.agents) {
    if (a.duplicate_of < 0 && !a.answered()) {
      fail("tree", kExitTreeIncomplete,
           a.ref.name() + " (" + a.ref.address() + ") did not answer: " + a.error);
    }
    for (const std::string& problem : a.problems) fail("tree", kExitTreeIncomplete, problem);
  }
}

}  // namespace

Command addTreeCommand(CLI::App& app, const GlobalOptions& globals) {
  CLI::App* sub = app.add_subcommand("tree", kTreeHelp);
  auto dot = std::make_shared<bool>(false);
  sub->add_flag("--dot", *dot, "Print Graphviz (digraph ftb { ... }) instead of a table");
  return {sub, [&globals, dot]() -> int {
            if (*dot && globals.json) {
              return fail("tree", kExitUsage, "--dot and --json exclude each other");
            }
            // The first agent through the control API, on any endpoint kind
            // (unix:// too); the others at their tree (tcp://) addresses.
            Result<ControlClient> control = connectControl(globals);
            if (!control.ok()) return fail("tree", control.status());
            Result<proto::TreeInfo> first = control->tree(globals.timeout());
            if (!first.ok()) return fail("tree", first.status());

            // The agents' TCP endpoints use Curve when the first one's does.
            const TreeCrawl crawl =
                crawlTree(*first, [&](const std::vector<std::string>& endpoints) {
                  return queryTreeInfo(endpoints, globals.timeout(), globals.curve);
                });
            if (*dot) {
              printTreeDot(crawl, std::cout);
            } else if (globals.json) {
              printTreeJson(crawl, std::cout);
            } else {
              printTreeText(crawl, std::cout, !globals.no_headers);
            }
            reportTrouble(crawl);
            return crawl.complete() ? kExitOk : kExitTreeIncomplete;
          }};
}

}  // namespace ftb::cli
