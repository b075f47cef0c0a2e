#define BOOST_TEST_MODULE launcher_rules
#include <boost/test/unit_test.hpp>

#include "components/launcher_bridge/rules.h"

using namespace ftb::launcher;

BOOST_AUTO_TEST_CASE(parses_actions_filters_comments_and_blank_lines) {
  auto rules = parseRules(
      "# comment\n"
      "\n"
      "event_name=FTB_IPMI_FANFAIL -> migrate   # trailing comment\n"
      "  event_space=FTB.IPMI.*, event_name=FTB_IPMI_OVERTEMP -> checkpoint_job_if_share>0.25\n"
      "severity>=fatal->relaunch\n");
  BOOST_TEST_REQUIRE(rules.ok(), rules.status().toString());
  BOOST_TEST_REQUIRE(rules->size() == 3u);
  BOOST_TEST(((*rules)[0].action == Action::kMigrate));
  BOOST_TEST((*rules)[0].line == 3);
  BOOST_TEST((*rules)[0].text == "event_name=FTB_IPMI_FANFAIL -> migrate");
  BOOST_TEST(((*rules)[1].action == Action::kCheckpointIfShare));
  BOOST_TEST((*rules)[1].share == 0.25);
  BOOST_TEST(((*rules)[2].action == Action::kRelaunch));
}

BOOST_AUTO_TEST_CASE(every_named_action_round_trips) {
  for (Action a : {Action::kCheckpoint, Action::kMigrate, Action::kSpare, Action::kRelaunch, Action::kRestart,
                   Action::kReplace, Action::kDrain, Action::kResume, Action::kIgnore}) {
    auto rules = parseRules("severity=all -> " + std::string(actionName(a)));
    BOOST_TEST_REQUIRE(rules.ok(), rules.status().toString());
    BOOST_TEST(((*rules)[0].action == a));
  }
}

BOOST_AUTO_TEST_CASE(bad_lines_are_refused_with_the_line_number) {
  struct Case {
    std::string text;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {"\nevent_name=X migrate", "rule line 2: missing '->'"},
           {"event_name=X -> explode", "unknown action 'explode'"},
           {"event_name=X ->", "missing action"},
           {"colour=red -> migrate", "rule line 1: filter:"},
           {"event_name=X -> checkpoint_job_if_share>1.5", "share '1.5'"},
           {"event_name=X -> checkpoint_job_if_share>", "share ''"},
           {"event_name=X -> checkpoint_job_if_share>0.5x", "share '0.5x'"},
           {"event_name=X -> migrate now", "one action per rule"},
       }) {
    auto rules = parseRules(c.text);
    BOOST_TEST_REQUIRE(!rules.ok(), c.text);
    BOOST_TEST(rules.status().message().find(c.says) != std::string::npos,
               c.text << " -> " << rules.status().message());
  }
}

BOOST_AUTO_TEST_CASE(the_default_rules_parse) {
  auto rules = parseRules(kDefaultRules);
  BOOST_TEST_REQUIRE(rules.ok(), rules.status().toString());
  BOOST_TEST(rules->size() >= 5u);
}
