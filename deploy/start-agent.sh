#!/usr/bin/env bash
# Quick start: install what is missing, build, and run ftb-agent in the
# foreground with its embedded default configuration (local clients on
# unix:///run/ftb/agent.stream, remote clients on TCP port 10809).
# Extra arguments go to ftb-agent (see ftb-agent --help).
set -euo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh
bazel build -c opt //agent:ftb-agent //cli:ftbctl
exec bazel-bin/agent/ftb-agent "$@"
