// Prints docs/AGENT_SETTINGS.md as the settings table makes it; see
// agent/update_settings_files.sh and tests/unit/agent/settings_files_test.sh.
#include <cstdio>

#include "agent/config/settings_text.h"

int main() {
  std::fputs(ftb::agent::settingsMarkdown().c_str(), stdout);
  return 0;
}
