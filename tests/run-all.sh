#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite with Bazel, in three
# tiers (arguments go to each):
#   1. every test with the default toolchain (gcc): bazel test //...
#   2. the unit tests again under ASan + UBSan (clang-14)
#   3. the fuzz targets with clang-14 and libFuzzer (ASan + UBSan), each for a
#      bounded time, starting with a replay of their seed corpus
# Tiers 2 and 3 share one build, in an output base of its own
# (tests/fuzz/bazel.sh), made and then run while tier 1's tests run, niced so
# that tier 1 comes first and they take what CPU it leaves (its exclusive tests
# run one at a time). Meanwhile tests/warm_caches.sh makes the cached Debian
# roots where missing, and the ULFM tier's in-root build is made ahead of the
# tier. Ends with one line "N passed, N failed" counted from Bazel's per-target
# results of all three; exits non-zero when any tier failed. Each phase's wall time is printed as "time: PHASE N s".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
deploy/install-deps.sh || exit 1
source tests/lib/bazel_results.sh

# The cached Debian roots of the root tiers, made meanwhile where missing
# (downloads and unpacking overlap the first build; tests wait for their lock).
nice -n 5 bash tests/warm_caches.sh >/dev/null 2>&1 &
warm_pid=$!

# One line per tier: "PASSED FAILED SKIPPED STATUS" (tiers 2 and 3 run in a subshell).
results=$(mktemp)
# One line per target that did not pass: "TARGET STATUS TEST_LOG".
failures=$(mktemp)

# run_tier NAME BAZEL "TARGETS" [OPTIONS...]: runs `BAZEL test OPTIONS TARGETS`
# and adds its per-target results to the counts. BAZEL is a command and its
# first words (bazel, tests/fuzz/bazel.sh);
# OPTIONS also select the testlogs that `BAZEL info` reads.
run_tier() {
  local name=$1 targets=$3 bazel
  read -ra bazel <<<"$2"
  shift 3
  local options=("$@")
  local log tier_status tier_passed tier_failed tier_skipped=0 testlogs target why
  log=$(mktemp)
  echo "=== ${name}"
  # gold warns about every sanitizer symbol it cannot export: noise, not news.
  # shellcheck disable=SC2086 # TARGETS are words
  "${bazel[@]}" test "${options[@]}" --test_summary=short --test_output=errors $targets 2>&1 |
    grep --line-buffered -v "ld.gold: warning: Cannot export local symbol" | tee "$log"
  tier_status=${PIPESTATUS[0]}

  tier_passed=$(target_results "$log" | grep -c ' PASSED$')
  tier_failed=$(target_results "$log" | grep -vc ' PASSED$')
  testlogs=$("${bazel[@]}" info "${options[@]}" bazel-testlogs 2>/dev/null)
  for target in $(target_results "$log" | grep ' PASSED$' | cut -d' ' -f1); do
    why=$(skip_reason "$testlogs" "$target")
    [[ -n $why ]] || continue
    echo "$target $why"
    tier_skipped=$((tier_skipped + 1))
  done
  tier_passed=$((tier_passed - tier_skipped))
  # What failed, with where its log is, for the recap at the very end.
  target_results "$log" | grep -v ' PASSED$' | while read -r target why; do
    echo "$target $why $(test_log "$testlogs" "$target")" >>"$failures"
  done
  rm -f "$log"
  if [[ $tier_status -ne 0 && $tier_failed -eq 0 ]]; then
    tier_failed=1  # the build itself failed before any test could report
  fi
  echo "${name}: ${tier_passed} passed, ${tier_failed} failed, ${tier_skipped} skipped"
  echo "$tier_passed $tier_failed $tier_skipped $tier_status" >>"$results"
}

# phase NAME COMMAND...: runs COMMAND and prints its wall time.
phase() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  local rc=$?
  echo "time: ${name} $((SECONDS - start)) s"
  return "$rc"
}

clang=tests/fuzz/bazel.sh
asan_targets="//tests/unit/..."
fuzz_targets="//tests/fuzz/..."

# Tier 1's build alone first: its tests need all of it, and their start decides the suite's length.
# Bazel's progress lines are left out; what it warns of or fails on shows at once.
phase "build (gcc)" bazel build "$@" //... 2>&1 | grep --line-buffered -v "^INFO: From \|^\["
# Then tiers 2 and 3, niced, beside tier 1's tests: their one build, then their
# tests (a fuzzer given less CPU runs fewer inputs in its fixed time). A failed
# build shows in its tier's test run, which builds again and reports it. Their
# output is shown after tier 1's.
tiers23_log=$(mktemp)
(
  # shellcheck disable=SC2086 # TARGETS are words
  phase "build (clang-14, ASan + UBSan, libFuzzer)" nice -n 15 "$clang" build "$@" $asan_targets $fuzz_targets
  phase "tests (ASan + UBSan)" run_tier "unit tests under ASan + UBSan (clang-14)" "nice -n 15 $clang" "$asan_targets" "$@"
  phase "fuzzing" run_tier "fuzzing (clang-14, libFuzzer, ASan + UBSan)" "nice -n 15 $clang" "$fuzz_targets" "$@"
  # Its server would hold ~1 GB until it idles out (3 h).
  "$clang" shutdown
) >"$tiers23_log" 2>&1 &
tiers23_pid=$!
# The ULFM tier runs alone, last: its in-root build (ftbckpt compiled in the
# trixie root, cached) is made now, beside the other tests, so that the tier
# finds it ready instead of compiling at the end of the suite.
nice -n 10 bash bazel-bin/tests/ulfm/run_through_test --build-only >/dev/null 2>&1 &
ulfm_build_pid=$!

# Two tests per core: most of them wait on processes and conditions (agents,
# MPI jobs, containers) far more than they compute, and each passes under CPU
# hogs (tests/stress.sh); one per core, Bazel's default, leaves the cores idle
# while they wait. What CPU they leave goes to tiers 2 and 3.
test_jobs=$((2 * $(nproc)))
phase "tests (gcc)" run_tier "all tests (gcc)" bazel "//..." --jobs="$test_jobs" --local_test_jobs="$test_jobs" "$@"
phase "waiting for tiers 2 and 3" wait "$tiers23_pid"
grep -v "^INFO: \|^Loading\|^Analyzing\|^\[" "$tiers23_log"
rm -f "$tiers23_log"
# Long done by now; bash may have reaped and forgotten them, which is no error.
wait "$warm_pid" "$ulfm_build_pid" 2>/dev/null

passed=0 failed=0 skipped=0 status=0
while read -r tier_passed tier_failed tier_skipped tier_status; do
  passed=$((passed + tier_passed))
  failed=$((failed + tier_failed))
  skipped=$((skipped + tier_skipped))
  if [[ $status -eq 0 ]]; then status=$tier_status; fi
done <"$results"
if (($(wc -l <"$results") != 3)); then
  echo "a tier reported nothing (see its output above)"
  failed=$((failed + 1))
  status=1
fi
rm -f "$results"
# The failures again, last, where a CI page that shows only the tail shows them.
while read -r target why test_log; do
  echo "=== ${why}: ${target}; the end of ${test_log}:"
  tail -n 30 "$test_log" 2>/dev/null || echo "(no test log: it did not build or did not start)"
done <"$failures"
rm -f "$failures"
echo "${skipped} skipped"
echo "${passed} passed, ${failed} failed"
exit "$status"
