#define BOOST_TEST_MODULE launcher_job_states
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "components/launcher_bridge/job_channel.h"

using namespace ftb::launcher;

namespace {
// The severity ftb-run declares for `name`, failing the test if it is undeclared.
ftb::Severity declaredSeverity(std::string_view name) {
  const auto declared = launcherEventDeclarations();
  auto it = std::find_if(declared.begin(), declared.end(), [&](const auto& d) { return d.name == name; });
  BOOST_TEST_REQUIRE((it != declared.end()), name << " is not declared");
  return it->severity;
}
}  // namespace

BOOST_AUTO_TEST_CASE(recovery_states_are_warnings) {
  for (const char* state : {"relaunching", "relaunched"}) {
    BOOST_TEST(jobStateEventName(state) == "FTB_JOB_RELAUNCH", state);
    BOOST_TEST((declaredSeverity(jobStateEventName(state)) == ftb::Severity::kWarning), state);
  }
}

BOOST_AUTO_TEST_CASE(ordinary_states_are_info) {
  for (const char* state : {"launched", "running", "finished"}) {
    BOOST_TEST(jobStateEventName(state) == "FTB_JOB_STATE", state);
    BOOST_TEST((declaredSeverity(jobStateEventName(state)) == ftb::Severity::kInfo), state);
  }
}

BOOST_AUTO_TEST_CASE(every_declared_name_is_unique) {
  auto declared = launcherEventDeclarations();
  std::vector<std::string> names;
  for (const auto& d : declared) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  BOOST_TEST((std::adjacent_find(names.begin(), names.end()) == names.end()));
}
