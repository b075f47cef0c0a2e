// The agent's settings, one row each: the only list of them. Everything an
// operator sees of a setting is derived from its row: the flag and config-file
// key (config.cc), what a SIGHUP does with a change (reload_plan.h), the example
// file deploy/ftb-agent.conf and docs/AGENT_SETTINGS.md (settings_text.h).
// A setting's type and default are its AgentConfig field's (config.h).
//
//   for (const Setting& s : agentSettings()) std::cout << s.key << " = " << valueText(s, config);
//
// Adding a setting: a field in AgentConfig, a row in settings.cc, then
// `bazel run //agent:update_settings_files` (tests/unit/agent fail until then).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "agent/config/config.h"

namespace ftb::agent {

// What a SIGHUP does when the value in the file changed.
enum class Reload {
  kLive,     // applied at once: the agent reads the field each time, or agent_lifecycle.cc applies it
  kRestart,  // fixed for the life of the process (sockets, identity, keys): warned about, old value kept
};

using SettingField = std::variant<std::string AgentConfig::*, uint32_t AgentConfig::*,
                                  uint64_t AgentConfig::*, std::vector<std::string> AgentConfig::*>;

struct NumberRange {
  uint64_t min;
  uint64_t max;
};

struct Setting {
  std::string_view key;  // the config-file key; the flag is "--" + key
  SettingField field;
  std::string_view help;  // one sentence, no unit, no final period
  std::string_view unit;  // "ms", "s", "bytes"; "" for counts and text
  Reload reload;
  std::optional<NumberRange> range = {};     // numbers: accepted values
  std::span<const std::string_view> choices = {};  // text: accepted values; empty = any
  std::string_view note = {};  // longer guidance for the example file and the docs, not --help
};

// Every setting, in the order --help, the example file and the docs list them.
std::span<const Setting> agentSettings();

// The row whose key is `key`, or nullptr.
const Setting* findSetting(std::string_view key);

// "text", "number" or "list" (comma-separated text).
std::string_view typeName(const Setting& setting);

// The value as a config-file line writes it: numbers bare, text and lists quoted
// ("a,b"), so that reading the line back gives the same value.
std::string valueText(const Setting& setting, const AgentConfig& config);

// The value for log lines and status: numbers and text bare, lists as [a,b].
std::string displayText(const Setting& setting, const AgentConfig& config);

bool sameValue(const Setting& setting, const AgentConfig& a, const AgentConfig& b);
void copyValue(const Setting& setting, const AgentConfig& from, AgentConfig& to);

}  // namespace ftb::agent
