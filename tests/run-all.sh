#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite with Bazel. Ends with
# one line "N passed, N failed" counted from Bazel's per-target results.
set -uo pipefail
cd "$(dirname "$0")/.."
deploy/install-deps.sh || exit 1

log=$(mktemp)
bazel test //... --test_summary=short --test_output=errors "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# Per-target lines: "//pkg:target   (cached) PASSED in 1.2s" / FAILED / TIMEOUT / NO STATUS ...
passed=$(grep -cE '^//[^ ]+ +(\(cached\) +)?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) +)?(FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)' "$log")
rm -f "$log"
if [[ $status -ne 0 && $failed -eq 0 ]]; then
  failed=1  # the build itself failed before any test could report
fi
echo "${passed} passed, ${failed} failed"
exit "$status"
