// What a reload does with each kind of setting, decided from the table alone.
#define BOOST_TEST_MODULE reload_plan_test
#include "agent/config/reload_plan.h"

#include <boost/test/unit_test.hpp>

#include "agent/config/settings.h"

using ftb::agent::AgentConfig;
using ftb::agent::planReload;
using ftb::agent::ReloadPlan;
using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_CASE(an_unchanged_file_changes_nothing) {
  AgentConfig running;
  running.history_events = 7;
  const ReloadPlan plan = planReload(running, running);
  BOOST_TEST(plan.live_changes.empty());
  BOOST_TEST(plan.restart_pending.empty());
  BOOST_TEST(plan.next.history_events == 7u);
}

BOOST_AUTO_TEST_CASE(a_live_setting_takes_the_new_value) {
  const AgentConfig running;
  AgentConfig loaded;
  loaded.history_events = 3;
  loaded.log_level = "warn";
  const ReloadPlan plan = planReload(running, loaded);
  BOOST_TEST(plan.next.history_events == 3u);
  BOOST_TEST(plan.next.log_level == "warn");
  BOOST_TEST(plan.live_changes == (Strings{"history-events 10000->3", "log-level info->warn"}),
             boost::test_tools::per_element());
  BOOST_TEST(plan.restart_pending.empty());
}

BOOST_AUTO_TEST_CASE(a_restart_only_setting_keeps_the_running_value_and_is_named) {
  AgentConfig running;
  running.metrics_listen = "127.0.0.1:9810";
  AgentConfig loaded = running;
  loaded.metrics_listen = "127.0.0.1:9811";
  loaded.curve_key_file = "/etc/ftb/curve.key";
  loaded.tree_heartbeat_ms = 100;
  loaded.client_timeout_ms = 9000;  // live, alongside
  const ReloadPlan plan = planReload(running, loaded);
  BOOST_TEST(plan.next.metrics_listen == "127.0.0.1:9810");
  BOOST_TEST(plan.next.curve_key_file.empty());
  BOOST_TEST(plan.next.tree_heartbeat_ms == running.tree_heartbeat_ms);
  BOOST_TEST(plan.next.client_timeout_ms == 9000u);
  BOOST_TEST(plan.restart_pending == (Strings{"metrics-listen", "curve-key-file", "tree-heartbeat-ms"}),
             boost::test_tools::per_element());
  BOOST_TEST(plan.live_changes == (Strings{"client-timeout-ms 5000->9000"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_setting_is_either_applied_or_named) {
  // Each row changed on its own: a live one ends in next, a restart-only one in
  // restart_pending, never neither (the silent case issue 17 was about).
  for (const ftb::agent::Setting& s : ftb::agent::agentSettings()) {
    const AgentConfig running;
    AgentConfig loaded;
    std::visit(
        [&](auto field) {
          using T = std::remove_reference_t<decltype(loaded.*field)>;
          if constexpr (std::is_same_v<T, std::string>) loaded.*field += "-changed";
          else if constexpr (std::is_same_v<T, std::vector<std::string>>) loaded.*field = {"tcp://x:1"};
          else loaded.*field += 1;
        },
        s.field);
    const ReloadPlan plan = planReload(running, loaded);
    if (s.reload == ftb::agent::Reload::kLive) {
      BOOST_TEST(sameValue(s, plan.next, loaded), s.key << " not applied");
      BOOST_TEST(plan.live_changes.size() == 1u, s.key);
      BOOST_TEST(plan.restart_pending.empty(), s.key);
    } else {
      BOOST_TEST(sameValue(s, plan.next, running), s.key << " changed without a restart");
      BOOST_TEST(plan.restart_pending == Strings{std::string(s.key)}, s.key);
      BOOST_TEST(plan.live_changes.empty(), s.key);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_notice_names_the_key) {
  BOOST_TEST(ftb::agent::restartNotice("metrics-listen") == "metrics-listen changed: takes effect at restart");
}

// prepareReload: what refuses a reload, and what it keeps of the running configuration.

BOOST_AUTO_TEST_CASE(a_configuration_that_check_config_refuses_is_not_reloaded) {
  AgentConfig loaded;
  loaded.tree_seeds = {"not-an-address"};
  auto prepared = ftb::agent::prepareReload(AgentConfig{}, loaded);
  BOOST_REQUIRE(!prepared.ok());
  BOOST_TEST(prepared.status().message().find("tree-seeds") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_policy_file_that_does_not_load_refuses_the_reload) {
  AgentConfig loaded;
  loaded.policy_file = "/nonexistent/ftb-policy.conf";
  auto prepared = ftb::agent::prepareReload(AgentConfig{}, loaded);
  BOOST_REQUIRE(!prepared.ok());
  BOOST_TEST(prepared.status().message().find("/nonexistent/ftb-policy.conf") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_configuration_that_cannot_be_read_is_passed_on_as_the_reason) {
  auto prepared = ftb::agent::prepareReload(AgentConfig{}, ftb::invalidArgument("line 3: no such key"));
  BOOST_REQUIRE(!prepared.ok());
  BOOST_TEST(prepared.status().message() == "line 3: no such key");
}

BOOST_AUTO_TEST_CASE(an_empty_name_keeps_the_name_resolved_at_start) {
  AgentConfig running;
  running.name = "node7";
  AgentConfig loaded;
  loaded.history_events = 3;
  auto prepared = ftb::agent::prepareReload(running, loaded);
  BOOST_REQUIRE(prepared.ok());
  BOOST_TEST(prepared->plan.next.name == "node7");
  BOOST_TEST(prepared->plan.next.history_events == 3u);
  BOOST_TEST(prepared->plan.restart_pending.empty());
}
