// ftbctl end to end: the real ftbctl binary against a real ftb-agent.
#define BOOST_TEST_MODULE ftbctl
#include <signal.h>

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "client/client.h"
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
using ftb::testing::waitFor;

namespace {

// The first string value of "key" in a line of ftbctl's JSON (no escapes needed here).
std::string jsonString(const std::string& json, const std::string& key) {
  const std::string marker = "\"" + key + "\":\"";
  const std::size_t at = json.find(marker);
  if (at == std::string::npos) return "<no " + key + ">";
  const std::size_t start = at + marker.size();
  return json.substr(start, json.find('"', start) - start);
}

// The first number value of "key" in ftbctl's JSON.
uint64_t jsonNumber(const std::string& json, const std::string& key) {
  const std::string marker = "\"" + key + "\":";
  const std::size_t at = json.find(marker);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no " << key << " in " << json);
  return std::stoull(json.substr(at + marker.size()));
}

// Waits until `ftbctl clients --json` lists a subscription with exactly this filter.
void waitForSubscription(const AgentProcess& agent, ChildProcess& watcher,
                         const std::string& filter) {
  const std::string marker = "\"filter\":\"" + filter + "\"";
  std::string last;
  const bool subscribed = waitFor([&] {
    if (!watcher.running()) BOOST_FAIL("watch exited early: " << describe(watcher.wait()));
    ChildResult r = ftbctlRun(agent, {"clients", "--json"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, describe(r));
    last = r.out;
    return contains(r.out, marker);
  });
  BOOST_REQUIRE_MESSAGE(subscribed, "the watch never subscribed; last clients reply: " << last);
}

}  // namespace

BOOST_AUTO_TEST_CASE(publish_then_history_shows_the_event) {
  AgentProcess agent;
  ChildResult pub =
      ftbctlRun(agent, {"publish", "--space", "FTB.CLITEST.NODE", "--name", "node_down",
                        "--severity", "error", "--payload", "node7 \"down\"", "--tag", "rack=r12",
                        "--job-id", "job42", "--json"});
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  const std::string id = jsonString(pub.out, "id");
  BOOST_CHECK_EQUAL(jsonString(pub.out, "space"), "FTB.CLITEST.NODE");
  BOOST_CHECK_EQUAL(lines(pub.out).size(), 1u);

  ChildResult history =
      ftbctlRun(agent, {"history", "--filter", "event_space=FTB.CLITEST.*", "--json"});
  BOOST_REQUIRE_MESSAGE(history.exit_code == 0, describe(history));
  const auto events = lines(history.out);
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_CHECK_EQUAL(jsonString(events[0], "id"), id);
  BOOST_CHECK_EQUAL(jsonString(events[0], "name"), "NODE_DOWN");
  BOOST_CHECK_EQUAL(jsonString(events[0], "severity"), "ERROR");
  BOOST_CHECK_EQUAL(jsonString(events[0], "job_id"), "job42");
  BOOST_CHECK_EQUAL(jsonString(events[0], "client"), "ftbctl");
  BOOST_CHECK(contains(events[0], R"("payload":"node7 \"down\"","payload_encoding":"utf-8")"));
  BOOST_CHECK(contains(events[0], R"("tags":{"rack":"r12"})"));
  BOOST_CHECK(contains(events[0], R"("credentials_known":true)"));

  ChildResult table = ftbctlRun(agent, {"history", "--last", "1"});
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, describe(table));
  const auto rows = lines(table.out);
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);  // header + the event
  BOOST_CHECK(contains(rows[0], "SEVERITY"));
  BOOST_CHECK(contains(rows[1], "NODE_DOWN"));
  BOOST_CHECK(contains(rows[1], "node7 \"down\""));

  ChildResult none = ftbctlRun(agent, {"history", "--filter", "event_space=FTB.OTHER", "--json"});
  BOOST_REQUIRE_MESSAGE(none.exit_code == 0, describe(none));
  BOOST_CHECK_EQUAL(none.out, "");
}

BOOST_AUTO_TEST_CASE(binary_payload_is_base64_in_json_and_escaped_in_tables) {
  AgentProcess agent;
  ChildResult pub = ftbctlRun(agent, {"publish", "--space", "FTB.CLITEST", "--name", "BLOB",
                                      "--severity", "info", "--payload", "\xff\xfe\n"});
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  ChildResult json = ftbctlRun(agent, {"history", "--json"});
  BOOST_REQUIRE_MESSAGE(json.exit_code == 0, describe(json));
  BOOST_CHECK(contains(json.out, R"("payload":"//4K","payload_encoding":"base64")"));
  ChildResult table = ftbctlRun(agent, {"history"});
  BOOST_CHECK(contains(table.out, R"(\xff\xfe\n)"));
}

BOOST_AUTO_TEST_CASE(watch_receives_two_events_published_by_another_ftbctl) {
  AgentProcess agent;
  const std::string filter = "event_space=FTB.CLITEST.*";
  ChildProcess watcher(ftbctlCommand(
      agent.ipcEndpoint(),
      {"watch", "--filter", filter, "--count", "2", "--json", "--client-name", "watcher"}));
  waitForSubscription(agent, watcher, filter);

  ChildResult noise = ftbctlRun(
      agent, {"publish", "--space", "FTB.ELSEWHERE", "--name", "NOISE", "--severity", "info"});
  BOOST_REQUIRE_MESSAGE(noise.exit_code == 0, describe(noise));
  ChildResult pub =
      ftbctlRun(agent, {"publish", "--space", "FTB.CLITEST.MPI", "--name", "PROC_DEAD",
                        "--severity", "fatal", "--payload", "rank 3", "--count", "2"});
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  const auto ids = lines(pub.out);
  BOOST_REQUIRE_EQUAL(ids.size(), 2u);

  ChildResult watched = watcher.wait();
  BOOST_REQUIRE_MESSAGE(watched.exit_code == 0, describe(watched));
  const auto events = lines(watched.out);
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    BOOST_CHECK_EQUAL(jsonString(events[i], "id"), ids[i]);
    BOOST_CHECK_EQUAL(jsonString(events[i], "space"), "FTB.CLITEST.MPI");
    BOOST_CHECK_EQUAL(jsonString(events[i], "name"), "PROC_DEAD");
    BOOST_CHECK_EQUAL(jsonString(events[i], "severity"), "FATAL");
    BOOST_CHECK_EQUAL(jsonString(events[i], "payload"), "rank 3");
  }
}

BOOST_AUTO_TEST_CASE(watch_last_replays_history_then_stops_at_count) {
  AgentProcess agent;
  for (const char* name : {"FIRST", "SECOND", "THIRD"}) {
    ChildResult pub = ftbctlRun(
        agent, {"publish", "--space", "FTB.CLITEST", "--name", name, "--severity", "warning"});
    BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  }
  ChildResult watched = ftbctlRun(agent, {"watch", "--last", "2", "--count", "2", "--json"});
  BOOST_REQUIRE_MESSAGE(watched.exit_code == 0, describe(watched));
  const auto events = lines(watched.out);
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_CHECK_EQUAL(jsonString(events[0], "name"), "SECOND");
  BOOST_CHECK_EQUAL(jsonString(events[1], "name"), "THIRD");
}

BOOST_AUTO_TEST_CASE(status_counters_follow_publishes) {
  // No TCP endpoint, no tree: its own FTB.AGENT events (becoming a root ...) would
  // count in events_in at a moment of their own.
  AgentProcess agent({"--tcp-endpoint=none"});
  ChildResult before = ftbctlRun(agent, {"status", "--json"});
  BOOST_REQUIRE_MESSAGE(before.exit_code == 0, describe(before));
  BOOST_CHECK(contains(before.out, "\"version\":\"0.1.0\""));
  ChildResult pub = ftbctlRun(agent, {"publish", "--space", "FTB.CLITEST", "--name", "TICK",
                                      "--severity", "info", "--count", "3"});
  BOOST_REQUIRE_MESSAGE(pub.exit_code == 0, describe(pub));
  ChildResult after = ftbctlRun(agent, {"status", "--json"});
  BOOST_REQUIRE_MESSAGE(after.exit_code == 0, describe(after));
  BOOST_CHECK_EQUAL(jsonNumber(after.out, "events_in"), jsonNumber(before.out, "events_in") + 3);
  BOOST_CHECK_EQUAL(jsonNumber(after.out, "history_events"),
                    jsonNumber(before.out, "history_events") + 3);
  BOOST_CHECK_EQUAL(jsonNumber(after.out, "clients_connected_total"),
                    jsonNumber(before.out, "clients_connected_total") + 1);

  ChildResult table = ftbctlRun(agent, {"status"});
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, describe(table));
  BOOST_CHECK(contains(table.out, agent.ipcEndpoint()));
}

BOOST_AUTO_TEST_CASE(clients_shows_the_rank_a_client_said) {
  AgentProcess agent;
  auto rank = ftb::Client::connect({.event_space = "FTB.CLITEST.RANKS",
                                    .client_name = "rank2",
                                    .job_id = "J5",
                                    .rank = 2,
                                    .agent_endpoint = agent.ipcEndpoint()});
  BOOST_REQUIRE_MESSAGE(rank.ok(), rank.status().toString());
  ChildResult table = ftbctlRun(agent, {"clients"});
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, describe(table));
  BOOST_CHECK_MESSAGE(contains(table.out, " J5:2 "), table.out);
  ChildResult json = ftbctlRun(agent, {"clients", "--json"});
  BOOST_REQUIRE_MESSAGE(json.exit_code == 0, describe(json));
  BOOST_CHECK_MESSAGE(contains(json.out, "\"job_id\":\"J5\",\"rank\":2"), json.out);
}

BOOST_AUTO_TEST_CASE(invalid_filter_exits_3_naming_the_key) {
  AgentProcess agent;
  for (const char* subcommand : {"history", "watch"}) {
    ChildResult r = ftbctlRun(agent, {subcommand, "--filter", "colour=red"});
    BOOST_CHECK_MESSAGE(r.exit_code == 3, subcommand << ": " << describe(r));
    BOOST_CHECK_MESSAGE(contains(r.err, "colour"), r.err);
    BOOST_CHECK_EQUAL(lines(r.err).size(), 1u);
  }
}

BOOST_AUTO_TEST_CASE(payload_over_the_agents_limit_exits_3) {
  AgentProcess agent({"--max-payload-bytes=8"});
  ChildResult r = ftbctlRun(agent, {"publish", "--space", "FTB.CLITEST", "--name", "BIG",
                                    "--severity", "info", "--payload", "0123456789"});
  BOOST_CHECK_MESSAGE(r.exit_code == 3, describe(r));
  BOOST_CHECK_MESSAGE(contains(r.err, "limit of 8 bytes"), r.err);
}

BOOST_AUTO_TEST_CASE(unreachable_agent_exits_2_promptly) {
  AgentProcess agent;
  const std::string tcp = agent.tcpEndpoint();
  const std::string missing = "ipc://" + agent.dir() + "/no-agent-here.sock";
  agent.kill();  // SIGKILL leaves its socket file behind: a stale endpoint
  // A timeout far beyond the bound below: a prompt answer does not wait for it.
  for (const std::string& endpoint : {missing, agent.ipcEndpoint(), tcp}) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"status"},
             {"clients"},
             {"history"},
             {"tree"},
             {"watch"},
             {"publish", "--space", "FTB.CLITEST", "--name", "X", "--severity", "info"}}) {
      args.insert(args.begin(), {"--timeout-ms", "20000"});
      ChildResult r = ftb::testing::runChild(ftbctlCommand(endpoint, args));
      BOOST_CHECK_MESSAGE(r.exit_code == 2, endpoint << " " << args[2] << ": " << describe(r));
      BOOST_CHECK_MESSAGE(r.elapsed < 10s,
                          endpoint << " " << args[2] << " took " << r.elapsed.count() << " ms");
      BOOST_CHECK_MESSAGE(contains(r.err, "is ftb-agent running?"), r.err);
      BOOST_CHECK_EQUAL(lines(r.err).size(), 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_stopped_agent_exits_2_after_timeout_ms) {
  AgentProcess agent;
  ::kill(agent.pid(), SIGSTOP);  // its socket still accepts connections, nobody answers
  ChildResult r = ftbctlRun(agent, {"--timeout-ms", "300", "status"});
  ::kill(agent.pid(), SIGCONT);
  BOOST_CHECK_MESSAGE(r.exit_code == 2, describe(r));
  BOOST_CHECK_GE(r.elapsed, 300ms);
  BOOST_CHECK_MESSAGE(contains(r.err, "within 300 ms: is ftb-agent running?"), r.err);
}

BOOST_AUTO_TEST_CASE(watch_timeout_exits_4) {
  AgentProcess agent;
  ChildResult r = ftbctlRun(agent, {"watch", "--timeout", "0.3", "--count", "1", "--json"});
  BOOST_CHECK_MESSAGE(r.exit_code == 4, describe(r));
  BOOST_CHECK_GE(r.elapsed, 300ms);
  BOOST_CHECK_EQUAL(r.out, "");
  BOOST_CHECK_MESSAGE(contains(r.err, "0 of 1 events"), r.err);

  ChildResult no_count = ftbctlRun(agent, {"watch", "--timeout", "0.1", "--json"});
  BOOST_CHECK_MESSAGE(no_count.exit_code == 4, describe(no_count));
  BOOST_CHECK_EQUAL(no_count.err, "");
}

BOOST_AUTO_TEST_CASE(watch_stops_with_0_on_sigterm_and_sigint) {
  AgentProcess agent;
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string filter = "event_name=SIGNAL" + std::to_string(sig);
    ChildProcess watcher(ftbctlCommand(agent.ipcEndpoint(), {"watch", "--filter", filter}));
    waitForSubscription(agent, watcher, filter);
    watcher.signal(sig);
    ChildResult r = watcher.wait();
    BOOST_CHECK_MESSAGE(r.exit_code == 0, "signal " << sig << ": " << describe(r));
    BOOST_CHECK(contains(r.out, "SEVERITY"));  // the table header
  }
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_1_and_help_lists_exit_codes) {
  AgentProcess agent;
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"frobnicate"},
      {"publish", "--name", "X", "--severity", "info"},
      {"publish", "--space", "FTB.X", "--name", "X", "--severity", "loud"},
      {"publish", "--space", "FTB.X", "--name", "X", "--severity", "info", "--tag", "novalue"},
      {"watch", "--timeout", "-1"},
      {"watch", "--count", "-3"},  // once wrapped to 18446744073709551613
      {"watch", "--last", "-1"},
      {"history", "--last", "-1"},
      {"status", "--timeout-ms", "0"},
  };
  for (const auto& args : bad) {
    ChildResult r = ftbctlRun(agent, args);
    BOOST_CHECK_MESSAGE(r.exit_code == 1, describe(r));
    BOOST_CHECK_MESSAGE(lines(r.err).size() == 1u, describe(r));
  }
  ChildResult bad_endpoint = ftb::testing::runChild({ftbctl(), "--agent", "localhost", "status"});
  BOOST_CHECK_MESSAGE(bad_endpoint.exit_code == 1, describe(bad_endpoint));
  // A unix:// path too long for a socket address says so (it once said the
  // endpoint was not of the unix:// form), and quotes only the path's start.
  ChildResult long_path = ftb::testing::runChild(
      {ftbctl(), "--agent", "unix:///tmp/" + std::string(10'000, 'a'), "status"});
  BOOST_CHECK_MESSAGE(long_path.exit_code == 1, describe(long_path));
  BOOST_CHECK_MESSAGE(contains(long_path.err, "a unix:// socket path has 1 to 107 characters, this one 10005"),
                      describe(long_path));
  BOOST_CHECK_MESSAGE(long_path.err.size() < 400u, describe(long_path));
  // Names and tags are held to their limits before anything is sent.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"publish", "--space", "FTB.X", "--name", "X", "--severity", "info",
                                 "--tag", "k=" + std::string(20'000, 'v')},
        std::vector<std::string>{"watch", "--filter", "event_name=" + std::string(10'000, 'N'), "--count", "1"}}) {
    ChildResult r = ftbctlRun(agent, args);
    BOOST_CHECK_MESSAGE(r.exit_code == 3, describe(r));
    BOOST_CHECK_MESSAGE(r.err.size() < 400u, describe(r));
  }

  for (const char* sub : {"publish", "watch", "status", "clients", "history", "tree"}) {
    ChildResult help = ftbctlRun(agent, {sub, "--help"});
    BOOST_CHECK_MESSAGE(help.exit_code == 0, describe(help));
    BOOST_CHECK_MESSAGE(contains(help.out, "Exit codes:") && contains(help.out, "4  watch") &&
                            contains(help.out, "5  tree"),
                        help.out);
  }
  ChildResult help = ftb::testing::runChild({ftbctl(), "--help"});
  BOOST_CHECK_EQUAL(help.exit_code, 0);
  BOOST_CHECK(contains(help.out, "--agent") && contains(help.out, "Exit codes:"));
}

BOOST_AUTO_TEST_CASE(clients_shows_a_watcher_and_its_subscription) {
  AgentProcess agent;
  const std::string filter = "severity>=warning";
  ChildProcess watcher(ftbctlCommand(
      agent.ipcEndpoint(), {"watch", "--filter", filter, "--client-name", "night-watch"}));
  waitForSubscription(agent, watcher, filter);
  ChildResult table = ftbctlRun(agent, {"clients"});
  BOOST_REQUIRE_MESSAGE(table.exit_code == 0, describe(table));
  const auto rows = lines(table.out);
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);
  BOOST_CHECK(contains(rows[1], "night-watch"));
  BOOST_CHECK(contains(rows[1], "FTB.FTBCTL"));
  BOOST_CHECK(contains(rows[1], "#1 severity>=warning"));
  ChildResult json = ftbctlRun(agent, {"clients", "--json"});
  BOOST_CHECK_EQUAL(jsonString(json.out, "name"), "night-watch");
  BOOST_CHECK_EQUAL(jsonNumber(json.out, "pid"), static_cast<uint64_t>(watcher.pid()));
}
