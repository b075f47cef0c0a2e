// Configuration: BMC lists, cross-field checks, flags and config-file keys.
#define BOOST_TEST_MODULE ipmi_config
#include <boost/test/unit_test.hpp>

#include <CLI/CLI.hpp>
#include <fstream>

#include "components/ipmi/config.h"
#include "tests/support/agent_process.h"

using ftb::ipmi::addMonitorOptions;
using ftb::ipmi::MonitorConfig;
using ftb::ipmi::parseBmcTargets;
using ftb::ipmi::validateConfig;

BOOST_AUTO_TEST_CASE(bmc_targets_with_and_without_names_and_ports) {
  auto t = parseBmcTargets({"node17=10.1.0.17:6230", "10.1.0.18", "node19=bmc19.example"});
  BOOST_REQUIRE_MESSAGE(t.ok(), t.status().toString());
  BOOST_REQUIRE_EQUAL(t->size(), 3u);
  BOOST_CHECK_EQUAL((*t)[0].name, "node17");
  BOOST_CHECK_EQUAL((*t)[0].address, "10.1.0.17:6230");
  BOOST_CHECK_EQUAL((*t)[1].name, "10.1.0.18");
  BOOST_CHECK_EQUAL((*t)[1].address, "10.1.0.18:623");  // an explicit port keeps FreeIPMI out-of-band
  BOOST_CHECK_EQUAL((*t)[2].address, "bmc19.example:623");
}

BOOST_AUTO_TEST_CASE(bad_bmc_targets_are_named) {
  struct Bad {
    std::vector<std::string> specs;
    const char* mentions;
  };
  for (const Bad& b : std::vector<Bad>{{{"n1=host:0"}, "invalid port '0'"},
                                       {{"n1=host:70000"}, "invalid port"},
                                       {{"n1=host:abc"}, "invalid port 'abc'"},
                                       {{"=host:623"}, "not name=host"},
                                       {{"n1="}, "not name=host"},
                                       {{"my node=host"}, "must not contain spaces"},
                                       {{"a/b=host"}, "'/'"},
                                       {{"n1=a:1", "n1=b:2"}, "listed twice"}}) {
    auto t = parseBmcTargets(b.specs);
    BOOST_TEST_CONTEXT(b.specs[0]) {
      BOOST_REQUIRE(!t.ok());
      BOOST_CHECK(t.status().code() == ftb::Code::kInvalidArgument);
      BOOST_CHECK_MESSAGE(t.status().message().find(b.mentions) != std::string::npos,
                          t.status().message());
    }
  }
}

BOOST_AUTO_TEST_CASE(cross_field_checks) {
  MonitorConfig c;
  BOOST_CHECK(validateConfig(c).ok());  // the embedded defaults are consistent
  c.recheck_ms = c.interval_ms + 1;
  BOOST_CHECK_NE(validateConfig(c).message().find("recheck-ms"), std::string::npos);
  c = MonitorConfig{};
  c.retry_min_ms = 5000;
  c.retry_max_ms = 1000;
  BOOST_CHECK(!validateConfig(c).ok());
  c = MonitorConfig{};
  c.session_timeout_ms = 500;  // FreeIPMI needs retransmission < session timeout
  BOOST_CHECK_NE(validateConfig(c).message().find("retransmission-timeout-ms"), std::string::npos);
  c = MonitorConfig{};
  c.workaround = {"opensesspriv", "bogus"};
  BOOST_CHECK_NE(validateConfig(c).message().find("bogus"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(flags_and_config_file_keys_fill_the_same_fields) {
  ftb::testing::TempDir dir;
  const std::string file = dir.path() + "/ftb-ipmi.conf";
  std::ofstream(file) << "interval-ms = 5000\n"
                         "bmc = [\"n1=127.0.0.1:9001\", \"n2=127.0.0.1:9002\"]\n"
                         "workaround = opensesspriv\n"
                         "privilege = admin\n";
  MonitorConfig c;
  CLI::App app;
  app.set_config("--config");
  addMonitorOptions(app, c);
  std::vector<std::string> args = {"ftb-ipmi", "--config", file, "--debounce", "3"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  BOOST_REQUIRE_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
  BOOST_CHECK_EQUAL(c.interval_ms, 5000u);
  BOOST_CHECK_EQUAL(c.debounce, 3u);
  BOOST_CHECK_EQUAL(c.privilege, "admin");
  BOOST_REQUIRE_EQUAL(c.bmc.size(), 2u);
  BOOST_CHECK_EQUAL(c.bmc[1], "n2=127.0.0.1:9002");
  BOOST_REQUIRE_EQUAL(c.workaround.size(), 1u);
  BOOST_CHECK_EQUAL(c.sel_poll_ms, 2000u);  // untouched default
}

BOOST_AUTO_TEST_CASE(out_of_range_values_are_refused) {
  MonitorConfig c;
  CLI::App app;
  addMonitorOptions(app, c);
  std::vector<std::string> args = {"ftb-ipmi", "--privilege", "root"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  BOOST_CHECK_THROW(app.parse(static_cast<int>(argv.size()), argv.data()), CLI::ParseError);
}

BOOST_AUTO_TEST_CASE(deploy_example_config_parses_and_matches_the_defaults) {
  MonitorConfig c;
  CLI::App app;
  app.set_config("--config");
  addMonitorOptions(app, c);
  std::vector<std::string> args = {"ftb-ipmi", "--config",
                                   ftb::testing::runfile("deploy/ftb-ipmi.conf")};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  BOOST_REQUIRE_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
  const MonitorConfig d;
  BOOST_CHECK_EQUAL(c.interval_ms, d.interval_ms);
  BOOST_CHECK_EQUAL(c.sel_poll_ms, d.sel_poll_ms);
  BOOST_CHECK_EQUAL(c.debounce, d.debounce);
  BOOST_CHECK_EQUAL(c.credentials_file, d.credentials_file);
  BOOST_CHECK(c.bmc.empty());
  BOOST_CHECK(validateConfig(c).ok());
}
