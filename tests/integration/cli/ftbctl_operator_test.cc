// ftbctl as operators meet it (issue 16), end to end against real ftb-agents:
// --version, "did you mean", durations with units, history --since/--until
// (filtered by the agent), --no-headers, tables that fit long event names,
// exit codes that say what went wrong, Curve, and the bash completion.
#define BOOST_TEST_MODULE ftbctl_operator
#include <time.h>

#include <boost/test/unit_test.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "client/control_client.h"
#include "client/curve_keys.h"
#include "tests/integration/cli/child_process.h"
#include "tests/integration/cli/ftbctl_runner.h"
#include "tests/support/agent_process.h"

using namespace std::chrono_literals;
using ftb::testing::AgentProcess;
using ftb::testing::ChildProcess;
using ftb::testing::ChildResult;
using ftb::testing::contains;
using ftb::testing::describe;
using ftb::testing::ftbctl;
using ftb::testing::ftbctlCommand;
using ftb::testing::ftbctlRun;
using ftb::testing::lines;
using ftb::testing::runChild;
using ftb::testing::runfile;
using ftb::testing::TempDir;
using ftb::testing::waitFor;

namespace {

ChildResult run(std::vector<std::string> args) {
  args.insert(args.begin(), ftbctl());
  return runChild(args);
}

// The first string value of "key" in a line of ftbctl's JSON.
std::string jsonString(const std::string& json, const std::string& key) {
  const std::string marker = "\"" + key + "\":\"";
  const std::size_t at = json.find(marker);
  if (at == std::string::npos) return "<no " + key + ">";
  const std::size_t start = at + marker.size();
  return json.substr(start, json.find('"', start) - start);
}

std::string publish(const AgentProcess& agent, const std::string& space, const std::string& name) {
  ChildResult r = ftbctlRun(
      agent, {"publish", "--space", space, "--name", name, "--severity", "info", "--json"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, describe(r));
  return jsonString(r.out, "id");
}

std::vector<std::string> historyIds(const AgentProcess& agent, std::vector<std::string> args) {
  args.insert(args.begin(), {"history", "--json", "--filter", "event_space=FTB.OPTEST"});
  ChildResult r = ftbctlRun(agent, args);
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, describe(r));
  std::vector<std::string> ids;
  for (const auto& line : lines(r.out)) ids.push_back(jsonString(line, "id"));
  return ids;
}

std::string rfc3339(std::chrono::system_clock::time_point t) {
  const int64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  const time_t sec = ns / 1'000'000'000;
  struct tm tm {};
  gmtime_r(&sec, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(ns % 1'000'000'000));
  return buf;
}

// Where `word` starts in `line` (display columns equal bytes here: ASCII only).
std::size_t column(const std::string& line, const std::string& word) {
  const std::size_t at = line.find(word);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no '" << word << "' in: " << line);
  return at;
}

}  // namespace

BOOST_AUTO_TEST_CASE(version_names_the_release_and_protocol) {
  ChildResult r = run({"--version"});
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, describe(r));
  BOOST_TEST(r.out == "ftbctl 0.1.0 (protocol 1)\n", r.out);
}

BOOST_AUTO_TEST_CASE(a_typo_gets_did_you_mean) {
  ChildResult command = run({"stauts"});
  BOOST_TEST(command.exit_code == 1, describe(command));
  BOOST_TEST(contains(command.err, "unknown command 'stauts'; did you mean 'status'?"),
             command.err);
  // Global options before the typo are skipped, with their values.
  ChildResult after_globals = run({"--agent", "ipc:///nowhere", "--json", "histroy"});
  BOOST_TEST(contains(after_globals.err, "unknown command 'histroy'; did you mean 'history'?"),
             after_globals.err);
  ChildResult nothing_close = run({"frobnicate"});
  BOOST_TEST(nothing_close.exit_code == 1);
  BOOST_TEST(contains(nothing_close.err, "unknown command 'frobnicate'; commands: publish, watch"),
             nothing_close.err);
  ChildResult option = run({"watch", "--fitler", "severity=fatal"});
  BOOST_TEST(option.exit_code == 1);
  BOOST_TEST(
      contains(option.err, "ftbctl watch: unknown option '--fitler'; did you mean '--filter'?"),
      option.err);
  ChildResult global = run({"status", "--jsn"});
  BOOST_TEST(contains(global.err, "did you mean '--json'?"), global.err);
}

BOOST_AUTO_TEST_CASE(durations_take_units_and_plain_numbers_keep_their_meaning) {
  AgentProcess agent;
  // Each long enough for a loaded machine to answer: the units are what is tested.
  for (const char* timeout : {"20s", "15000ms", "1m", "20000"}) {
    ChildResult r = ftbctlRun(agent, {"--timeout-ms", timeout, "status", "--json"});
    BOOST_TEST(r.exit_code == 0, timeout << ": " << describe(r));
  }
  // watch --timeout with a unit: exit 4 once it runs out, not before.
  ChildResult watch = ftbctlRun(agent, {"watch", "--timeout", "300ms", "--count", "1"});
  BOOST_TEST(watch.exit_code == 4, describe(watch));
  BOOST_TEST(watch.elapsed >= 300ms);
  BOOST_TEST(watch.elapsed < 20s);  // not 300 s
  ChildResult plain = ftbctlRun(agent, {"watch", "--timeout", "0.2"});  // seconds, as before
  BOOST_TEST(plain.exit_code == 4, describe(plain));

  ChildResult bad_unit = ftbctlRun(agent, {"--timeout-ms", "20x", "status"});
  BOOST_TEST(bad_unit.exit_code == 1);
  BOOST_TEST(contains(bad_unit.err, "unknown unit 'x' in '20x'"), bad_unit.err);
  ChildResult too_long = ftbctlRun(agent, {"--timeout-ms", "2h", "status"});
  BOOST_TEST(too_long.exit_code == 1);
  BOOST_TEST(contains(too_long.err, "outside 1ms .. 1h00m00s"), too_long.err);
}

BOOST_AUTO_TEST_CASE(history_since_and_until_bound_by_publish_time) {
  AgentProcess agent;
  const std::string first = publish(agent, "FTB.OPTEST", "FIRST");
  const auto between = std::chrono::system_clock::now();  // after FIRST's ack, before SECOND
  const std::string second = publish(agent, "FTB.OPTEST", "SECOND");

  BOOST_TEST(historyIds(agent, {}) == (std::vector<std::string>{first, second}));
  BOOST_TEST(historyIds(agent, {"--since", rfc3339(between)}) ==
             (std::vector<std::string>{second}));
  BOOST_TEST(historyIds(agent, {"--until", rfc3339(between)}) == (std::vector<std::string>{first}));
  BOOST_TEST(historyIds(agent, {"--since", "1h"}) == (std::vector<std::string>{first, second}));
  BOOST_TEST(historyIds(agent, {"--until", "1h"}).empty());
  BOOST_TEST(historyIds(agent, {"--since", "1h", "--last", "1"}) ==
             (std::vector<std::string>{second}));
  // --last counts within the bounds: the newest one before `between` is FIRST.
  BOOST_TEST(historyIds(agent, {"--until", rfc3339(between), "--last", "1"}) ==
             (std::vector<std::string>{first}));

  // The agent itself filters (ftbctl re-checks only for older agents).
  auto control = ftb::ControlClient::connect(agent.ipcEndpoint());
  BOOST_REQUIRE(control.ok());
  const int64_t between_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(between.time_since_epoch()).count();
  auto reply = control->history("event_space=FTB.OPTEST", 0, {.since_unix_ns = between_ns}, 5s);
  BOOST_REQUIRE_MESSAGE(reply.ok(), reply.status().toString());
  BOOST_TEST(reply->events_size() == 1);
  reply = control->history("event_space=FTB.OPTEST", 0, {.until_unix_ns = between_ns}, 5s);
  BOOST_REQUIRE(reply.ok());
  BOOST_TEST(reply->events_size() == 1);

  ChildResult reversed = ftbctlRun(agent, {"history", "--since", "5m", "--until", "10m"});
  BOOST_TEST(reversed.exit_code == 1);
  BOOST_TEST(contains(reversed.err, "--since 5m lies after --until 10m"), reversed.err);
  ChildResult no_unit = ftbctlRun(agent, {"history", "--since", "10"});
  BOOST_TEST(no_unit.exit_code == 1);
  BOOST_TEST(contains(no_unit.err, "--since: '10' is neither a duration with a unit"), no_unit.err);
  ChildResult no_zone = ftbctlRun(agent, {"history", "--since", "2026-11-25T16:00:00"});
  BOOST_TEST(no_zone.exit_code == 1);
  BOOST_TEST(contains(no_zone.err, "it needs a time zone"), no_zone.err);
}

BOOST_AUTO_TEST_CASE(tables_fit_long_names_and_no_headers_drops_the_header) {
  AgentProcess agent;
  // Longer than any width the table could start with.
  const std::string long_name = "FTB_AGENT_EVENTS_LOST_WHILE_THE_TREE_REPAIRED_ITSELF";
  publish(agent, "FTB.OPTEST", "FTB_CHECKPOINT_DONE");
  publish(agent, "FTB.OPTEST", long_name);

  ChildResult history = ftbctlRun(agent, {"history"});
  BOOST_REQUIRE_MESSAGE(history.exit_code == 0, describe(history));
  const auto rows = lines(history.out);
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].rfind("TIME", 0) == 0u);
  // The CLIENT column starts at the same place on every line, after the long name.
  const std::size_t client = column(rows[0], "CLIENT");
  BOOST_TEST(client > column(rows[2], long_name) + long_name.size());
  BOOST_TEST(column(rows[1], "ftbctl") == client, history.out);
  BOOST_TEST(column(rows[2], "ftbctl") == client, history.out);

  ChildResult bare = ftbctlRun(agent, {"history", "--no-headers"});
  BOOST_REQUIRE_MESSAGE(bare.exit_code == 0, describe(bare));
  BOOST_TEST(lines(bare.out) == (std::vector<std::string>{rows[1], rows[2]}));

  ChildResult clients = ftbctlRun(agent, {"--no-headers", "clients"});
  BOOST_REQUIRE_MESSAGE(clients.exit_code == 0, describe(clients));
  BOOST_TEST(!contains(clients.out, "NAME"), clients.out);

  // watch prints as events arrive: a long name widens the columns of the rows after it.
  ChildResult watch = ftbctlRun(agent, {"watch", "--last", "2", "--count", "2", "--no-headers"});
  BOOST_REQUIRE_MESSAGE(watch.exit_code == 0, describe(watch));
  const auto watched = lines(watch.out);
  BOOST_REQUIRE_EQUAL(watched.size(), 2u);
  BOOST_TEST(column(watched[0], "FTB_CHECKPOINT_DONE") + std::string("FTB_CHECKPOINT_DONE").size() <
                 column(watched[0], "ftbctl"),
             watch.out);
  BOOST_TEST(column(watched[1], long_name) + long_name.size() < column(watched[1], "ftbctl"),
             watch.out);
}

BOOST_AUTO_TEST_CASE(keygen_write_error_is_a_local_error) {
  ChildResult r = run({"keygen", "--out", "/nonexistent-ftb-dir/agent"});
  BOOST_TEST(r.exit_code == 6, describe(r));
  BOOST_TEST(contains(r.err, "ftbctl keygen: cannot write /nonexistent-ftb-dir/agent.key"), r.err);
  BOOST_TEST(!contains(r.err, "agent refused"), r.err);

  ChildResult help = run({"--help"});
  BOOST_TEST(help.exit_code == 0);
  for (int code = 0; code <= 6; ++code) {
    BOOST_TEST(contains(help.out, "\n  " + std::to_string(code) + "  "), "code " << code);
  }
  BOOST_TEST(contains(help.out, "6  local error"), help.out);
}

BOOST_AUTO_TEST_CASE(curve_options_reach_a_curve_agent) {
  TempDir dir;
  const auto cluster = ftb::curve::generateKeyPair().value();
  const auto stranger = ftb::curve::generateKeyPair().value();
  BOOST_REQUIRE(ftb::curve::writeKeyFiles(cluster, dir.path() + "/cluster").ok());
  BOOST_REQUIRE(ftb::curve::writeKeyFiles(stranger, dir.path() + "/stranger").ok());
  AgentProcess agent({"--curve-key-file=" + dir.path() + "/cluster.key"});
  const std::string tcp = agent.tcpEndpoint();
  const std::string key = "--curve-key-file=" + dir.path() + "/cluster.key";

  // Without Curve the handshake fails, and the message says which option is missing.
  ChildResult plain = runChild(ftbctlCommand(tcp, {"status"}));
  BOOST_TEST(plain.exit_code == 2, describe(plain));
  BOOST_TEST(contains(plain.err, "--curve-key-file"), plain.err);

  ChildResult status = runChild(ftbctlCommand(tcp, {key, "status", "--json"}));
  BOOST_REQUIRE_MESSAGE(status.exit_code == 0, describe(status));
  // The server key explicitly, as a key and as the .pub file keygen wrote.
  ChildResult by_key =
      runChild(ftbctlCommand(tcp, {key, "--curve-server-key", cluster.public_key, "status"}));
  BOOST_TEST(by_key.exit_code == 0, describe(by_key));
  ChildResult by_file = runChild(
      ftbctlCommand(tcp, {key, "--curve-server-key", dir.path() + "/cluster.pub", "status"}));
  BOOST_TEST(by_file.exit_code == 0, describe(by_file));
  // From the environment, like FTB_AGENT_ENDPOINT.
  ChildResult from_env =
      runChild({"/usr/bin/env", "FTB_CURVE_KEY_FILE=" + dir.path() + "/cluster.key",
                "FTB_AGENT_ENDPOINT=" + tcp, ftbctl(), "status"});
  BOOST_TEST(from_env.exit_code == 0, describe(from_env));

  // publish and watch (the SDK) and history (the control API) over Curve.
  ChildProcess watcher(ftbctlCommand(tcp, {key, "watch", "--json", "--count", "1", "--timeout",
                                           "20s", "--filter", "event_space=FTB.OPTEST"}));
  BOOST_REQUIRE(waitFor([&] {
    ChildResult c = runChild(ftbctlCommand(tcp, {key, "clients", "--json"}));
    return contains(c.out, "event_space=FTB.OPTEST");
  }));
  ChildResult pub = runChild(ftbctlCommand(tcp, {key, "publish", "--space", "FTB.OPTEST", "--name",
                                                 "OVER_CURVE", "--severity", "info"}));
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  ChildResult watched = watcher.wait();
  BOOST_TEST(watched.exit_code == 0, describe(watched));
  BOOST_TEST(contains(watched.out, "\"name\":\"OVER_CURVE\""), watched.out);

  // A key the agent does not authorize: refused by the agent, exit 3, at once
  // (well within a timeout long enough to tell the two apart on a loaded machine).
  ChildResult refused =
      runChild(ftbctlCommand(tcp, {"--timeout-ms", "20000", "--curve-key-file", dir.path() + "/stranger.key",
                                   "--curve-server-key", cluster.public_key, "status"}));
  BOOST_TEST(refused.exit_code == 3, describe(refused));
  BOOST_TEST(contains(refused.err, "refused this client's Curve key"), refused.err);
  BOOST_TEST(refused.elapsed < 10s);

  // Unusable key files are local errors (6); a server key alone is a usage error (1).
  ChildResult missing =
      runChild(ftbctlCommand(tcp, {"--curve-key-file", "/nonexistent.key", "status"}));
  BOOST_TEST(missing.exit_code == 6, describe(missing));
  BOOST_TEST(contains(missing.err, "--curve-key-file: cannot read Curve key file /nonexistent.key"),
             missing.err);
  ChildResult alone =
      runChild(ftbctlCommand(tcp, {"--curve-server-key", cluster.public_key, "status"}));
  BOOST_TEST(alone.exit_code == 1, describe(alone));
  BOOST_TEST(contains(alone.err, "--curve-server-key needs --curve-key-file"), alone.err);
  ChildResult secret_as_server = runChild(
      ftbctlCommand(tcp, {key, "--curve-server-key", dir.path() + "/cluster.key", "status"}));
  BOOST_TEST(secret_as_server.exit_code == 1, describe(secret_as_server));
  BOOST_TEST(contains(secret_as_server.err, "is the secret key of --curve-key-file"),
             secret_as_server.err);
  ChildResult no_such_pub = runChild(
      ftbctlCommand(tcp, {key, "--curve-server-key", dir.path() + "/missing.pub", "status"}));
  BOOST_TEST(no_such_pub.exit_code == 6, describe(no_such_pub));
}

BOOST_AUTO_TEST_CASE(every_command_works_over_the_agents_own_stream_socket) {
  AgentProcess agent;
  const std::string stream = agent.streamEndpoint();
  ChildResult status = runChild(ftbctlCommand(stream, {"status", "--json"}));
  BOOST_REQUIRE_MESSAGE(status.exit_code == 0, describe(status));
  BOOST_TEST(contains(status.out, stream));  // the agent lists the endpoint it serves

  ChildProcess watcher(ftbctlCommand(stream, {"watch", "--json", "--count", "1", "--timeout", "20s",
                                              "--filter", "event_space=FTB.STREAMTEST"}));
  // The watcher is a local client on the stream socket: the agent knows its pid from the kernel.
  BOOST_REQUIRE(waitFor([&] {
    ChildResult c = runChild(ftbctlCommand(stream, {"clients", "--json"}));
    return contains(c.out, "event_space=FTB.STREAMTEST") &&
           contains(c.out, "\"pid\":" + std::to_string(watcher.pid())) &&
           contains(c.out, "\"credentials_known\":true");
  }));
  ChildResult pub = runChild(ftbctlCommand(stream, {"publish", "--space", "FTB.STREAMTEST", "--name",
                                                    "OVER_STREAM", "--severity", "info"}));
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  ChildResult watched = watcher.wait();
  BOOST_TEST(watched.exit_code == 0, describe(watched));
  BOOST_TEST(contains(watched.out, "OVER_STREAM"));
  ChildResult history = runChild(ftbctlCommand(stream, {"history", "--json"}));
  BOOST_TEST(contains(history.out, "OVER_STREAM"), describe(history));

  // Nothing listening there: exit 2 at once, saying so.
  ChildResult dead = runChild(ftbctlCommand("unix://" + agent.dir() + "/nothing.stream", {"status"}));
  BOOST_TEST(dead.exit_code == 2, describe(dead));
  BOOST_TEST(contains(dead.err, "nothing is listening"), describe(dead));
}

BOOST_AUTO_TEST_CASE(tree_over_curve_reports_healthy_agents_as_healthy) {
  TempDir dir;
  const auto cluster = ftb::curve::generateKeyPair().value();
  BOOST_REQUIRE(ftb::curve::writeKeyFiles(cluster, dir.path() + "/cluster").ok());
  const std::string agent_key = "--curve-key-file=" + dir.path() + "/cluster.key";
  AgentProcess root({agent_key, "--name=curve-a0"});
  AgentProcess child({agent_key, "--name=curve-a1", "--tree-seeds=" + root.tcpEndpoint()});

  // Through the child's IPC endpoint (plain), the crawl reaches the root over Curve.
  ChildResult tree;
  const bool settled = waitFor(
      [&] {
        tree = ftbctlRun(child, {agent_key, "tree"});
        // ftbctl tree answers (exit 0) while the child is still joining too.
        return tree.exit_code == 0 && contains(tree.out, "2 agent(s), 1 root(s)");
      },
      20s);
  BOOST_REQUIRE_MESSAGE(settled, describe(tree));
  BOOST_TEST(contains(tree.out, "2 agent(s), 1 root(s)"), tree.out);
  for (const auto& line : lines(tree.out)) {
    if (contains(line, "curve-a")) BOOST_TEST(contains(line, " ok "), line);
  }
  // Through the root's TCP endpoint too.
  ChildResult via_tcp = runChild(ftbctlCommand(root.tcpEndpoint(), {agent_key, "tree"}));
  BOOST_TEST(via_tcp.exit_code == 0, describe(via_tcp));

  // Without the keys the same healthy agents cannot be asked: what the issue saw.
  ChildResult without = ftbctlRun(child, {"tree"});
  BOOST_TEST(without.exit_code == 5, describe(without));
  BOOST_TEST(contains(without.out, "unreachable"), without.out);
}

BOOST_AUTO_TEST_CASE(bash_completion_offers_commands_and_every_option_in_help) {
  const std::string script = runfile("cli/ftbctl.bash-completion");
  // COMPREPLY for the words typed so far (the last one is being completed).
  const auto complete = [&](const std::vector<std::string>& words) {
    std::string array;
    for (const auto& w : words) array += " '" + w + "'";
    const std::string code = "source '" + script + "' && COMP_WORDS=(" + array +
                             ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                             " && _ftbctl && printf '%s\\n' \"${COMPREPLY[@]}\"";
    ChildResult r = runChild({"/bin/bash", "-c", code});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, describe(r));
    std::set<std::string> offered;
    for (const auto& l : lines(r.out)) {
      if (!l.empty()) offered.insert(l);
    }
    return offered;
  };
  ChildResult registered =
      runChild({"/bin/bash", "-c", "source '" + script + "' && complete -p ftbctl"});
  BOOST_TEST(registered.out == "complete -F _ftbctl ftbctl\n", describe(registered));

  BOOST_TEST(complete({"ftbctl", "st"}) == (std::set<std::string>{"status"}));
  BOOST_TEST(complete({"ftbctl", "--json", "h"}) == (std::set<std::string>{"history"}));
  BOOST_TEST(complete({"ftbctl", "--agent", "ipc:///x", "w"}) == (std::set<std::string>{"watch"}));
  BOOST_TEST(complete({"ftbctl", "publish", "--severity", "w"}) ==
             (std::set<std::string>{"warning"}));
  BOOST_TEST(complete({"ftbctl", "history", "--si"}) == (std::set<std::string>{"--since"}));

  // Every option --help lists, for ftbctl and each command, is offered after "--".
  for (const std::string command :
       {"", "publish", "watch", "status", "clients", "history", "tree", "keygen"}) {
    std::vector<std::string> help_args = {ftbctl()};
    if (!command.empty()) help_args.push_back(command);
    help_args.push_back("--help");
    ChildResult help = runChild(help_args);
    BOOST_REQUIRE_MESSAGE(help.exit_code == 0, describe(help));
    std::vector<std::string> words = {"ftbctl"};
    if (!command.empty()) words.push_back(command);
    words.push_back("--");
    const std::set<std::string> offered = complete(words);
    // Option lines of CLI11's help start with the names: "  -h,--help", "  --agent TEXT ...".
    std::size_t listed = 0;
    for (const std::string& line : lines(help.out)) {
      const std::size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line.compare(start, 1, "-") != 0) continue;
      std::string names = line.substr(start, line.find(' ', start) - start);
      for (std::size_t at = names.find("--"); at != std::string::npos;
           at = names.find("--", at + 2)) {
        const std::string word = names.substr(at, names.find(',', at) - at);
        ++listed;
        BOOST_TEST(offered.count(word) == 1u, "'ftbctl " << command << " --help' lists " << word
                                                         << " but the completion does not");
      }
    }
    BOOST_TEST(listed >= 1u, "no options found in: " << help.out);
  }
}
