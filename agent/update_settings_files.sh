#!/usr/bin/env bash
# Rewrites the committed files made from the settings table (agent/config/settings.cc):
# the example configuration and the settings reference. Run it with
#   bazel run //agent:update_settings_files
# (Bazel passes the two generators; tests/unit/agent:settings_files_test checks the result).
set -euo pipefail
agent=$(realpath "$1")
doc=$(realpath "$2")
cd "${BUILD_WORKSPACE_DIRECTORY:?run this with: bazel run //agent:update_settings_files}"
"$agent" --print-config-template >deploy/ftb-agent.conf
"$doc" >docs/AGENT_SETTINGS.md
echo "rewrote deploy/ftb-agent.conf and docs/AGENT_SETTINGS.md from agent/config/settings.cc"
