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
# A tier that cannot run on this machine exits 0 after one line "SKIPPED: <why>"
# (Bazel 4 knows no skipped status): counted as skipped, not passed.
skipped=0
testlogs=$(bazel info bazel-testlogs 2>/dev/null)
for target in $(grep -oE '^//[^ ]+ +(\(cached\) +)?PASSED' "$log" | cut -d' ' -f1); do
  test_log="$testlogs/$(echo "${target#//}" | tr ':' '/')/test.log"
  why=$(grep -m1 '^SKIPPED: ' "$test_log" 2>/dev/null) || continue
  echo "$target $why"
  skipped=$((skipped + 1))
done
passed=$((passed - skipped))
rm -f "$log"
echo "${skipped} skipped"
if [[ $status -ne 0 && $failed -eq 0 ]]; then
  failed=1  # the build itself failed before any test could report
fi
echo "${passed} passed, ${failed} failed"
exit "$status"
