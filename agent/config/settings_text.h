// The settings table (settings.h) as text for people, in the two committed
// files made from it: the example configuration deploy/ftb-agent.conf
// (`ftb-agent --print-config-template`) and the reference docs/AGENT_SETTINGS.md
// (`agent_settings_doc`). tests/unit/agent:settings_files_test compares the
// committed files with these; `bazel run //agent:update_settings_files` rewrites them.
#pragma once

#include <string>

namespace ftb::agent {

// Every key at its default (`key = value`, so that `sed s/^key = .*/.../` edits
// work), each after its help, unit, reload class and note as comments.
std::string configTemplate();

// A Markdown page with one table row per setting: key, type, default, unit,
// reload, help and note.
std::string settingsMarkdown();

}  // namespace ftb::agent
