#!/usr/bin/env bash
# The files made from the settings table (agent/config/settings.cc) agree with it:
# deploy/ftb-agent.conf is `ftb-agent --print-config-template`,
# docs/AGENT_SETTINGS.md is `agent_settings_doc`, and every flag that the man
# page source deploy/man/ftb-agent.h2m names is one that `ftb-agent --help` lists
# (the man page's OPTIONS are that --help, by help2man).
# Args: ftb-agent, agent_settings_doc, the committed conf, doc and man source.
set -uo pipefail
agent=$1 doc=$2 conf=$3 md=$4 man=$5
fix="bring them in line with: bazel run //agent:update_settings_files"
failed=0

if ! diff -u "$conf" <("$agent" --print-config-template); then
  echo "FAIL: deploy/ftb-agent.conf differs from ftb-agent --print-config-template (above); $fix" >&2
  failed=1
fi
if ! diff -u "$md" <("$doc"); then
  echo "FAIL: docs/AGENT_SETTINGS.md differs from the settings table (above); $fix" >&2
  failed=1
fi

help=$("$agent" --help) || { echo "FAIL: ftb-agent --help failed" >&2; exit 1; }
# help2man sources write a flag as \-\-tree\-seeds.
for flag in $(grep -o '\\-\\-[a-z\\-]*[a-z]' "$man" | sed 's/\\//g' | sort -u); do
  if ! grep -qE -- "(^|[ ,])$flag( |=|$)" <<<"$help"; then
    echo "FAIL: deploy/man/ftb-agent.h2m names $flag, which ftb-agent --help does not list" >&2
    failed=1
  fi
done

[[ $failed == 0 ]] && echo "settings files agree with agent/config/settings.cc"
exit $failed
