// The settings table on its own: one row per AgentConfig field, each field
// once, keys that work as flags, defaults that pass their own checks.
#define BOOST_TEST_MODULE settings_test
#include "agent/config/settings.h"

#include <algorithm>
#include <set>

#include <boost/test/unit_test.hpp>

using ftb::agent::AgentConfig;
using ftb::agent::agentSettings;
using ftb::agent::findSetting;
using ftb::agent::Setting;

namespace {

// Converts to any field type; used only in unevaluated brace-initialisation, to
// count how many fields the aggregate AgentConfig has (the idea of Boost.PFR).
struct AnyField {
  template <typename T>
  operator T() const;  // NOLINT: implicit on purpose, never called
};

template <typename T, typename... Fields>
constexpr std::size_t countFields() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return countFields<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_field_has_exactly_one_row) {
  // A field added to AgentConfig without a row would be no flag, no key and
  // unknown to the reload: this count catches it.
  static_assert(countFields<AgentConfig>() > 20, "the field count trick counts AgentConfig's fields");
  BOOST_TEST(agentSettings().size() == countFields<AgentConfig>());
  const auto rows = agentSettings();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      BOOST_TEST(!(rows[i].field == rows[j].field), rows[i].key << " and " << rows[j].key << " share a field");
    }
  }
}

BOOST_AUTO_TEST_CASE(keys_are_unique_lower_case_flag_names) {
  std::set<std::string_view> keys;
  for (const Setting& s : agentSettings()) {
    BOOST_TEST(keys.insert(s.key).second, s.key << " twice");
    BOOST_TEST(std::all_of(s.key.begin(), s.key.end(),
                           [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }),
               s.key);
    BOOST_TEST(findSetting(s.key) == &s);
  }
  BOOST_TEST(findSetting("no-such-setting") == nullptr);
}

BOOST_AUTO_TEST_CASE(every_row_is_documented_and_its_default_passes_its_own_checks) {
  const AgentConfig defaults;
  for (const Setting& s : agentSettings()) {
    BOOST_TEST(!s.help.empty(), s.key);
    BOOST_TEST(s.help.back() != '.', s.key << ": help is a sentence without its period");
    if (s.range) {
      const uint64_t value = std::stoull(ftb::agent::valueText(s, defaults));
      BOOST_TEST((s.range->min <= value && value <= s.range->max), s.key << " default " << value);
    }
    if (!s.choices.empty()) {
      const std::string value = ftb::agent::displayText(s, defaults);
      BOOST_TEST((std::find(s.choices.begin(), s.choices.end(), value) != s.choices.end()),
                 s.key << " default " << value);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_settings_silently_ignored_on_reload_before_are_restart_only) {
  // Issue 17: these were neither applied nor reported by SIGHUP.
  for (const char* key : {"metrics-listen", "metrics-max-namespaces", "curve-key-file",
                          "curve-server-key", "curve-authorized-keys"}) {
    const Setting* s = findSetting(key);
    BOOST_REQUIRE_MESSAGE(s != nullptr, key);
    BOOST_TEST((s->reload == ftb::agent::Reload::kRestart), key);
  }
}

BOOST_AUTO_TEST_CASE(copy_and_compare_work_on_the_rows_field_only) {
  AgentConfig a;
  AgentConfig b;
  b.history_events = 3;
  b.tree_seeds = {"tcp://x:1", "tcp://y:2"};
  const Setting& history = *findSetting("history-events");
  const Setting& seeds = *findSetting("tree-seeds");
  BOOST_TEST(!sameValue(history, a, b));
  BOOST_TEST(sameValue(*findSetting("log-level"), a, b));
  copyValue(history, b, a);
  BOOST_TEST(a.history_events == 3u);
  BOOST_TEST(a.tree_seeds.empty());
  BOOST_TEST(ftb::agent::valueText(seeds, b) == "\"tcp://x:1,tcp://y:2\"");
  BOOST_TEST(ftb::agent::displayText(seeds, b) == "[tcp://x:1,tcp://y:2]");
  BOOST_TEST(ftb::agent::valueText(*findSetting("log-level"), b) == "\"info\"");
  BOOST_TEST(ftb::agent::valueText(history, b) == "3");
}
