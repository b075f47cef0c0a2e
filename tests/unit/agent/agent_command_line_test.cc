// The agent's command line and config-file keys as made from the settings
// table: every row is a flag with its help, nothing else is a setting, every key
// of a file reaches its field, and the example file reads back as the defaults.
#define BOOST_TEST_MODULE agent_command_line_test
#include "agent/config/agent_command_line.h"

#include <cstdlib>
#include <fstream>

#include <CLI/CLI.hpp>
#include <boost/test/unit_test.hpp>

#include "agent/config/settings.h"
#include "agent/config/settings_text.h"

using ftb::agent::AgentConfig;
using ftb::agent::agentSettings;
using ftb::agent::parseAgentCommandLine;
using ftb::agent::Setting;

namespace {

// A file in the test's private directory with `text` in it.
std::string writeFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A value unlike the default that passes the row's checks, as a file writes it.
std::string otherValue(const Setting& s) {
  if (s.range) return std::to_string(s.range->min == 0 ? 1 : s.range->min);
  if (!s.choices.empty()) return "\"" + std::string(s.choices.front()) + "\"";
  if (ftb::agent::typeName(s) == "number") return "4242";
  if (ftb::agent::typeName(s) == "list") return "\"tcp://a:1,tcp://b:2\"";
  return "\"other-" + std::string(s.key) + "\"";
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_is_a_flag_with_its_help_and_nothing_else_is_a_setting) {
  AgentConfig config;
  auto app = ftb::agent::makeAgentCommandLine(config);
  for (const Setting& s : agentSettings()) {
    const CLI::Option* option = app->get_option_no_throw("--" + std::string(s.key));
    BOOST_REQUIRE_MESSAGE(option != nullptr, s.key << " is no flag");
    BOOST_TEST(option->get_description() == ftb::agent::helpText(s));
    BOOST_TEST(option->get_configurable(), s.key << " cannot be set in the file");
  }
  // A flag added by hand, past the table, would be a setting nothing else knows.
  for (const CLI::Option* option : app->get_options()) {
    const std::string name = option->get_name();
    if (name == "--help" || name == "--config" || name == "--version") continue;
    BOOST_TEST(ftb::agent::findSetting(name.substr(2)) != nullptr, name << " is not in the settings table");
  }
}

BOOST_AUTO_TEST_CASE(the_example_file_reads_back_as_the_defaults) {
  const std::string path = writeFile("template.conf", ftb::agent::configTemplate());
  auto parsed = parseAgentCommandLine({"--config", path});
  BOOST_REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  const AgentConfig defaults;
  for (const Setting& s : agentSettings()) {
    BOOST_TEST(sameValue(s, *parsed, defaults),
               s.key << ": " << ftb::agent::displayText(s, *parsed) << " read back, default "
                     << ftb::agent::displayText(s, defaults));
  }
}

BOOST_AUTO_TEST_CASE(every_key_of_a_file_reaches_its_field) {
  std::string file;
  for (const Setting& s : agentSettings()) file += std::string(s.key) + " = " + otherValue(s) + "\n";
  auto parsed = parseAgentCommandLine({"--config", writeFile("changed.conf", file)});
  BOOST_REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  for (const Setting& s : agentSettings()) {
    BOOST_TEST(ftb::agent::valueText(s, *parsed) == otherValue(s), s.key);
  }
}

BOOST_AUTO_TEST_CASE(flags_win_over_the_file_and_lists_drop_empty_entries) {
  const std::string path = writeFile("seeds.conf", "tree-seeds = \"\"\nhistory-events = 5\n");
  auto parsed = parseAgentCommandLine({"--config", path, "--history-events=6"});
  BOOST_REQUIRE_MESSAGE(parsed.ok(), parsed.status().message());
  BOOST_TEST(parsed->tree_seeds.empty());
  BOOST_TEST(parsed->history_events == 6u);
  parsed = parseAgentCommandLine({"--tree-seeds=tcp://a:1,tcp://b:2"});
  BOOST_REQUIRE(parsed.ok());
  BOOST_TEST(parsed->tree_seeds == (std::vector<std::string>{"tcp://a:1", "tcp://b:2"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_value_outside_its_row_checks_is_refused_naming_the_key) {
  auto parsed = parseAgentCommandLine({"--tree-fan-out=0"});
  BOOST_REQUIRE(!parsed.ok());
  BOOST_TEST(parsed.status().message().find("tree-fan-out") != std::string::npos, parsed.status().message());
  parsed = parseAgentCommandLine({"--config", writeFile("bad.conf", "log-level = loud\n")});
  BOOST_REQUIRE(!parsed.ok());
  BOOST_TEST(parsed.status().message().find("log-level") != std::string::npos, parsed.status().message());
}

BOOST_AUTO_TEST_CASE(local_clients_get_the_stream_socket_and_zeromq_ipc_only_when_asked_for) {
  auto parsed = parseAgentCommandLine({});
  BOOST_REQUIRE(parsed.ok());
  BOOST_TEST(parsed->ipc_endpoint == "none");
  BOOST_TEST(ftb::agent::localEndpoint(*parsed) == "unix:///run/ftb/agent.stream");
  // With IPC asked for, "auto" puts the stream socket beside it.
  parsed = parseAgentCommandLine({"--ipc-endpoint=ipc:///tmp/x/agent.sock"});
  BOOST_REQUIRE(parsed.ok());
  BOOST_TEST(ftb::agent::localEndpoint(*parsed) == "unix:///tmp/x/agent.stream");
  parsed = parseAgentCommandLine({"--ipc-endpoint=ipc:///tmp/x/agent.sock", "--local-endpoint=none"});
  BOOST_REQUIRE(parsed.ok());
  BOOST_TEST(ftb::agent::localEndpoint(*parsed).empty());
}
