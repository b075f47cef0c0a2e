#!/usr/bin/env bash
# The flake hunt: runs test targets N times over while CPU hogs keep every
# core busy, and prints each target's pass count. A test that asserts what
# scheduling decides fails here first.
#
#   tests/stress.sh [--runs N] [--hogs K] [--nice P] [--logs DIR] TARGET... [-- BAZEL_OPTION...]
#   tests/stress.sh --runs 5 //tests/integration/tree/...
#   tests/stress.sh --process-level      # every integration, lab, ULFM, system and install target
#
#   --runs N     runs of each target (default 5), each round a fresh `bazel test`
#                of all targets (test results are never taken from the cache)
#   --hogs K     busy-loop processes for the whole time (default: one per core)
#   --nice P     their niceness (default 0: they compete with the tests as equals)
#   --logs DIR   where the test.log of each failed run is kept (default
#                /tmp/ftb-stress): DIR/<package>/<target>/run-<R>.log
# Ends with one line per target "TARGET P/N passed" and exits 1 when any run failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
source tests/lib/bazel_results.sh

runs=5 hogs=$(nproc) niceness=0 logs=/tmp/ftb-stress process_level=0
targets=() bazel_options=()
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --hogs) hogs=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --process-level) process_level=1; shift ;;
    --) shift; bazel_options=("$@"); break ;;
    -*) echo "stress: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((process_level)); then
  # Everything that starts real processes: not the unit, simulation or fuzz tests.
  mapfile -t -O "${#targets[@]}" targets < <(bazel query 'tests(//...)' 2>/dev/null |
    grep -vE '^//(tests/(unit|sim|fuzz)|components/[a-z_]+/tests/unit)[/:]')
fi
((${#targets[@]})) || { echo "stress: no targets (see the usage at the top of $0)" >&2; exit 2; }

hog_pids=()
stop_hogs() { ((${#hog_pids[@]})) && kill "${hog_pids[@]}" 2>/dev/null; }
trap stop_hogs EXIT
for ((i = 0; i < hogs; i++)); do
  nice -n "$niceness" sh -c 'while :; do :; done' &
  hog_pids+=($!)
done
echo "stress: ${#targets[@]} target patterns x $runs runs under $hogs CPU hogs (nice $niceness); load $(cut -d' ' -f1 /proc/loadavg)"

testlogs=$(bazel info "${bazel_options[@]}" bazel-testlogs 2>/dev/null)
declare -A passed_runs=() failed_runs=()
log=$(mktemp)
for ((round = 1; round <= runs; round++)); do
  start=$SECONDS
  bazel test "${bazel_options[@]}" --cache_test_results=no --test_summary=short --test_output=errors \
    "${targets[@]}" >"$log" 2>&1
  while read -r target status; do
    if [[ $status == PASSED ]]; then
      passed_runs[$target]=$((${passed_runs[$target]:-0} + 1))
      continue
    fi
    failed_runs[$target]=$((${failed_runs[$target]:-0} + 1))
    kept=$(dirname "$(test_log "$logs" "$target")")
    mkdir -p "$kept"
    cp "$(test_log "$testlogs" "$target")" "$kept/run-$round.log" 2>/dev/null
    echo "stress: round $round: $target $status (log: $kept/run-$round.log)"
  done < <(target_results "$log")
  if ! grep -qE '^//' "$log"; then
    echo "stress: round $round built nothing to test:"; tail -20 "$log"; exit 2
  fi
  echo "stress: round $round of $runs done in $((SECONDS - start)) s, load $(cut -d' ' -f1 /proc/loadavg)"
done
rm -f "$log"

status=0
for target in $(printf '%s\n' "${!passed_runs[@]}" "${!failed_runs[@]}" | sort -u); do
  p=${passed_runs[$target]:-0}
  why=$(skip_reason "$testlogs" "$target")
  echo "$target $p/$runs passed${why:+ ($why)}"
  ((p == runs)) || status=1
done
exit "$status"
