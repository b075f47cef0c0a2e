// ftbctl tree end to end: real ftb-agents forming a tree, crawled by the real
// ftbctl; then an agent with children is killed and the tree must heal.
#define BOOST_TEST_MODULE ftbctl_tree
#include <signal.h>

#include <boost/test/unit_test.hpp>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "tests/integration/cli/ftbctl_runner.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::ChildResult;
using ftb::testing::contains;
using ftb::testing::describe;
using ftb::testing::ftbctlRun;
using ftb::testing::lines;
using ftb::testing::waitFor;

namespace {

using Agents = std::vector<std::unique_ptr<AgentProcess>>;

// Agent 0 founds the tree; the others join through it. Fan-out 2 gives depth.
Agents startTree(int n, std::vector<std::string> extra_flags = {}) {
  Agents agents;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> flags = {"--name=tree-a" + std::to_string(i), "--tree-fan-out=2"};
    if (i > 0) flags.push_back("--tree-seeds=" + agents[0]->tcpEndpoint());
    flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
    agents.push_back(std::make_unique<AgentProcess>(flags));
  }
  return agents;
}

// One agent of `ftbctl tree --json`, picked out of the array.
struct TreeEntry {
  std::string name;
  bool answered = false;
  std::vector<std::string> path;  // names, root first, ending with itself
  bool has_children = false;
};

std::string stringAfter(const std::string& text, std::size_t from, const std::string& key) {
  const std::string marker = "\"" + key + "\":\"";
  const std::size_t at = text.find(marker, from);
  if (at == std::string::npos) return "";
  const std::size_t start = at + marker.size();
  return text.substr(start, text.find('"', start) - start);
}

std::vector<TreeEntry> parseTreeJson(const std::string& json) {
  std::vector<TreeEntry> entries;
  const std::string marker = "{\"self\":";
  for (std::size_t at = json.find(marker); at != std::string::npos;) {
    const std::size_t next = json.find(marker, at + 1);
    const std::string object = json.substr(at, next == std::string::npos ? next : next - at);
    TreeEntry e;
    e.name = stringAfter(object, 0, "name");
    e.answered = contains(object, "\"answered\":true");
    e.has_children = contains(object, "\"is_parent\":false");
    const std::size_t path = object.find("\"path\":[");
    const std::size_t end = object.find(']', path);
    for (std::size_t ref = object.find("\"name\":\"", path); path != std::string::npos && ref < end;
         ref = object.find("\"name\":\"", ref + 1)) {
      e.path.push_back(stringAfter(object, ref, "name"));
    }
    entries.push_back(e);
    at = next;
  }
  return entries;
}

// `ftbctl tree --json` through `via`, polled until `done` holds; the last answer.
std::vector<TreeEntry> waitForTree(const AgentProcess& via, const std::string& what,
                                   const std::function<bool(const std::vector<TreeEntry>&)>& done) {
  ChildResult last;
  std::vector<TreeEntry> entries;
  const bool reached = waitFor(
      [&] {
        last = ftbctlRun(via, {"--timeout-ms", "1000", "tree", "--json"});
        entries = parseTreeJson(last.out);
        return last.exit_code == 0 && done(entries);
      },
      30s);
  BOOST_REQUIRE_MESSAGE(reached, "never " << what << "; last ftbctl tree: " << describe(last));
  return entries;
}

bool allAnswered(const std::vector<TreeEntry>& entries, std::size_t n) {
  if (entries.size() != n) return false;
  for (const auto& e : entries) {
    if (!e.answered) return false;
  }
  return true;
}

// One table row of `ftbctl tree`: the name and how deep it is indented.
struct TreeRow {
  std::string name;
  std::size_t depth = 0;
  std::string line;
};

// The agent rows: between the header and the summary line.
std::vector<TreeRow> treeRows(const std::string& text) {
  std::vector<std::string> all = lines(text);
  BOOST_REQUIRE_GE(all.size(), 2u);
  BOOST_REQUIRE(contains(all.front(), "AGENT") && contains(all.front(), "HEALTH"));
  std::vector<TreeRow> rows;
  for (std::size_t i = 1; i + 1 < all.size(); ++i) {
    const std::string& line = all[i];
    const std::size_t indent = line.find_first_not_of(' ');
    BOOST_REQUIRE_EQUAL(indent % 2, 0u);
    rows.push_back({line.substr(indent, line.find(' ', indent) - indent), indent / 2, line});
  }
  return rows;
}

std::size_t countMatches(const std::string& text, const std::regex& pattern) {
  return std::distance(std::sregex_iterator(text.begin(), text.end(), pattern),
                       std::sregex_iterator());
}

// Resumes a SIGSTOPped agent however the test ends.
struct Resume {
  pid_t pid;
  ~Resume() { ::kill(pid, SIGCONT); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(tree_shows_every_agent_under_its_parent_and_heals_after_a_kill) {
  constexpr std::size_t kAgents = 5;
  // Heartbeats at twice the default rate keep a busy test machine from showing
  // a healthy link as "silent" (over 500 ms).
  Agents agents = startTree(kAgents, {"--tree-heartbeat-ms=100"});
  const std::vector<TreeEntry> tree = waitForTree(
      *agents[0], "saw all agents join", [&](const auto& e) { return allAnswered(e, kAgents); });

  // Text: each agent once, indented as deep as its own path says, under its parent.
  ChildResult text = ftbctlRun(*agents[0], {"tree"});
  BOOST_REQUIRE_MESSAGE(text.exit_code == 0, describe(text));
  const std::vector<TreeRow> rows = treeRows(text.out);
  BOOST_REQUIRE_EQUAL(rows.size(), kAgents);
  std::map<std::string, TreeEntry> by_name;
  for (const auto& e : tree) by_name[e.name] = e;
  std::vector<std::string> ancestors;  // names above the current row
  std::size_t deepest = 0;
  for (const TreeRow& row : rows) {
    BOOST_REQUIRE_MESSAGE(by_name.count(row.name) == 1, "unknown or repeated agent: " << row.line);
    const TreeEntry e = by_name[row.name];
    by_name.erase(row.name);  // a second row with this name fails the check above
    BOOST_REQUIRE_EQUAL(row.depth + 1, e.path.size());
    ancestors.resize(row.depth);
    BOOST_CHECK_MESSAGE(std::vector<std::string>(e.path.begin(), e.path.end() - 1) == ancestors,
                        row.line << " is not indented under its path");
    ancestors.push_back(row.name);
    deepest = std::max(deepest, row.depth);
    BOOST_CHECK_MESSAGE(contains(row.line, " ok "), row.line);
  }
  BOOST_CHECK_GE(deepest, 2u);  // fan-out 2: five agents need three levels
  BOOST_CHECK(contains(lines(text.out).back(), "5 agent(s), 1 root(s)"));
  // The same tree through the agent's own stream socket, the default endpoint kind.
  ChildResult over_stream =
      ftb::testing::runChild(ftb::testing::ftbctlCommand(agents[0]->streamEndpoint(), {"tree"}));
  BOOST_REQUIRE_MESSAGE(over_stream.exit_code == 0, describe(over_stream));
  BOOST_CHECK_EQUAL(treeRows(over_stream.out).size(), kAgents);

  // Graphviz: one node per agent, one edge per parent-child link (latency "-" until
  // the parent has measured it).
  ChildResult dot = ftbctlRun(*agents[0], {"tree", "--dot"});
  BOOST_REQUIRE_MESSAGE(dot.exit_code == 0, describe(dot));
  BOOST_CHECK_EQUAL(dot.out.rfind("digraph ftb {\n", 0), 0u);
  BOOST_CHECK_EQUAL(lines(dot.out).back(), "}");
  BOOST_CHECK_EQUAL(countMatches(dot.out, std::regex(R"(\n  "tcp://[^"]+" \[label="tree-a\d\\n)")),
                    kAgents);
  BOOST_CHECK_EQUAL(
      countMatches(
          dot.out,
          std::regex(R"re(\n  "tcp://[^"]+" -> "tcp://[^"]+" \[label="(\d+\.\d\dms|-)"\])re")),
      kAgents - 1);
  BOOST_CHECK(!contains(dot.out, "red"));

  // Kill an agent that has children; the rest must rejoin without it.
  std::size_t victim = 0;
  for (const auto& e : tree) {
    if (e.path.size() > 1 && e.has_children)
      victim = std::stoul(e.name.substr(e.name.find("a") + 1));
  }
  BOOST_REQUIRE_MESSAGE(victim != 0, "no agent below the root has children");
  const std::string victim_name = "tree-a" + std::to_string(victim);
  agents[victim]->kill();
  const AgentProcess& survivor = *agents[victim == 1 ? 2 : 1];
  const std::vector<TreeEntry> healed =
      waitForTree(survivor, "saw the tree heal without " + victim_name, [&](const auto& e) {
        if (!allAnswered(e, kAgents - 1)) return false;
        for (const auto& entry : e) {
          if (entry.name == victim_name) return false;
        }
        return true;
      });
  ChildResult after = ftbctlRun(survivor, {"tree"});
  BOOST_CHECK_MESSAGE(after.exit_code == 0, describe(after));
  BOOST_CHECK_EQUAL(treeRows(after.out).size(), kAgents - 1);
  BOOST_CHECK(!contains(after.out, victim_name));
  BOOST_TEST_MESSAGE("after killing " << victim_name << ":\n" << after.out);
}

BOOST_AUTO_TEST_CASE(an_agent_that_does_not_answer_is_listed_unreachable_and_exits_5) {
  // Links never time out here (no heartbeat timeout; PINGs, off by default,
  // stated for clarity), so the parent keeps listing the stopped agent.
  Agents agents = startTree(3, {"--tree-timeout-ms=600000", "--tree-ping-ms=0"});
  waitForTree(*agents[0], "saw all agents join", [](const auto& e) { return allAnswered(e, 3); });

  Resume resume{agents[2]->pid()};
  ::kill(agents[2]->pid(), SIGSTOP);
  // 3 s per query: the live agents answer within it on a loaded machine, so
  // exactly the stopped one is unreachable (each query waits that long for it).
  ChildResult text = ftbctlRun(*agents[0], {"--timeout-ms", "3000", "tree"});
  BOOST_CHECK_MESSAGE(text.exit_code == 5, describe(text));
  bool listed = false;
  for (const TreeRow& row : treeRows(text.out)) {
    if (row.name == "tree-a2") listed = contains(row.line, "unreachable");
  }
  BOOST_CHECK_MESSAGE(listed, text.out);
  BOOST_CHECK(contains(lines(text.out).back(), "1 did not answer"));
  BOOST_CHECK_MESSAGE(contains(text.err, "tree-a2") && contains(text.err, "did not answer"),
                      text.err);

  ChildResult json = ftbctlRun(*agents[0], {"--timeout-ms", "3000", "tree", "--json"});
  BOOST_CHECK_EQUAL(json.exit_code, 5);
  const std::vector<TreeEntry> entries = parseTreeJson(json.out);
  BOOST_CHECK_EQUAL(entries.size(), 3u);
  BOOST_CHECK_EQUAL(
      std::count_if(entries.begin(), entries.end(), [](const TreeEntry& e) { return !e.answered; }),
      1);

  ChildResult dot = ftbctlRun(*agents[0], {"--timeout-ms", "3000", "tree", "--dot"});
  BOOST_CHECK_EQUAL(dot.exit_code, 5);
  BOOST_CHECK_EQUAL(countMatches(dot.out, std::regex(", color=red")), 1u);
}

BOOST_AUTO_TEST_CASE(an_agent_without_a_tree_says_so) {
  AgentProcess agent({"--tcp-endpoint=none"});
  ChildResult r = ftbctlRun(agent, {"tree"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0, describe(r));
  BOOST_CHECK_MESSAGE(contains(r.out, "the tree is disabled"), r.out);
  // As installed: a TCP endpoint, no cluster key.
  AgentProcess fresh({"--tree-authentication=curve"});
  ChildResult off = ftbctlRun(fresh, {"tree"});
  BOOST_CHECK_MESSAGE(off.exit_code == 0, describe(off));
  BOOST_CHECK_MESSAGE(contains(off.out, "the tree is off on this agent: it has no cluster key"), off.out);
  ChildResult both = ftbctlRun(agent, {"tree", "--dot", "--json"});
  BOOST_CHECK_MESSAGE(both.exit_code == 1, describe(both));
}
