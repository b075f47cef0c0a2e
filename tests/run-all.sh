#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite with Bazel, in three
# tiers (arguments go to each):
#   1. every test with the default toolchain (gcc): bazel test //...
#   2. the unit tests and the fuzz corpora again under ASan + UBSan (gcc,
#      --config=asan: outputs apart from tier 1's, so neither rebuilds the other)
#   3. the fuzz targets with clang-14 and libFuzzer, each for a bounded time
#      (tests/fuzz/bazel.sh: an output base of its own under /var/cache/ftb-test)
# Meanwhile tests/warm_caches.sh makes the cached Debian roots where missing.
# Ends with one line "N passed, N failed" counted from Bazel's per-target
# results of all three; exits non-zero when any tier failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
deploy/install-deps.sh || exit 1
source tests/lib/bazel_results.sh

# The cached Debian roots of the root tiers, made meanwhile where missing
# (downloads and unpacking overlap the first build; tests wait for their lock).
nice -n 5 bash tests/warm_caches.sh >/dev/null 2>&1 &
warm_pid=$!

passed=0 failed=0 skipped=0 status=0

# run_tier NAME BAZEL "TARGETS" [OPTIONS...]: runs `BAZEL test OPTIONS TARGETS`
# and adds its per-target results to the counts. BAZEL is a command (bazel, or
# tests/fuzz/bazel.sh); OPTIONS also select the testlogs that `BAZEL info` reads.
run_tier() {
  local name=$1 bazel=$2 targets=$3
  shift 3
  local options=("$@")
  local log tier_status tier_passed tier_failed tier_skipped=0 testlogs target why
  log=$(mktemp)
  echo "=== ${name}"
  # gold warns about every sanitizer symbol it cannot export: noise, not news.
  # shellcheck disable=SC2086 # TARGETS are words
  "$bazel" test "${options[@]}" --test_summary=short --test_output=errors $targets 2>&1 |
    grep --line-buffered -v "ld.gold: warning: Cannot export local symbol" | tee "$log"
  tier_status=${PIPESTATUS[0]}

  tier_passed=$(target_results "$log" | grep -c ' PASSED$')
  tier_failed=$(target_results "$log" | grep -vc ' PASSED$')
  testlogs=$("$bazel" info "${options[@]}" bazel-testlogs 2>/dev/null)
  for target in $(target_results "$log" | grep ' PASSED$' | cut -d' ' -f1); do
    why=$(skip_reason "$testlogs" "$target")
    [[ -n $why ]] || continue
    echo "$target $why"
    tier_skipped=$((tier_skipped + 1))
  done
  tier_passed=$((tier_passed - tier_skipped))
  rm -f "$log"
  if [[ $tier_status -ne 0 && $tier_failed -eq 0 ]]; then
    tier_failed=1  # the build itself failed before any test could report
  fi
  echo "${name}: ${tier_passed} passed, ${tier_failed} failed, ${tier_skipped} skipped"
  passed=$((passed + tier_passed))
  failed=$((failed + tier_failed))
  skipped=$((skipped + tier_skipped))
  if [[ $status -eq 0 ]]; then status=$tier_status; fi
}

run_tier "all tests (gcc)" bazel "//..." "$@"
run_tier "unit tests and fuzz corpora under ASan + UBSan (gcc)" bazel \
  "//tests/unit/... //tests/fuzz/..." --config=asan "$@"
run_tier "fuzzing (clang-14, libFuzzer, ASan + UBSan)" tests/fuzz/bazel.sh "//tests/fuzz/..." "$@"
tests/fuzz/bazel.sh shutdown  # its server would hold ~1 GB until it idles out (3 h)
wait "$warm_pid"  # long done by now

echo "${skipped} skipped"
echo "${passed} passed, ${failed} failed"
exit "$status"
