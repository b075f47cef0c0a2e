#!/usr/bin/env bash
# Failure-free cost of local rollback's message log (docs/FTBCKPT.md, "Local
# rollback"): the stencil with and without FTBCKPT_LOCAL_ROLLBACK=1, in
# alternating pairs so that both see the same machine, then the log's peak
# memory per rank against its bound. Figures only; nothing is asserted.
#   bazel run -c opt //components/mpi_bridge/bench:local_rollback_bench -- [ranks] [pairs] [iterations]
# The defaults (2 ranks, 7 pairs, 4000 iterations) keep one rank per core of
# a 2-core machine: more ranks than cores make the spread between runs (10-15 %)
# hide the cost measured.
set -euo pipefail
ranks=${1:-2}
pairs=${2:-7}
iterations=${3:-4000}
here=$(cd "$(dirname "$0")" && pwd)
bin=${RUNFILES_DIR:-$0.runfiles}/ftb/components/mpi_bridge
[[ -x $bin/examples/stencil ]] || bin=$here/..
map=$(for ((r = 0; r < ranks; r++)); do printf 'n%d,' $((r % 2)); done)
export OMPI_MCA_rmaps_base_oversubscribe=1 TMPDIR=/tmp
logs=$(mktemp -d /tmp/ftbckpt-lr-bench-XXXXXX)
trap 'rm -rf "$logs"' EXIT

"${RUNFILES_DIR:-$0.runfiles}/ftb/bench/print_environment" || echo "environment: ? (no bench/print_environment)"
echo "== the stencil, $ranks ranks x 1024 x 512 doubles, $iterations iterations, L1 every 50; $pairs alternating pairs"

# run LOGGED OUT: one run's wall seconds on stdout, its output in OUT.
run() {
  local start end
  start=$(date +%s.%N)
  mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$ranks" -x FTBCKPT_NODE_MAP="${map%,}" \
    -x FTB_JOB_ID=LRBENCH -x FTBCKPT_AGENT=0 -x FTBCKPT_LEVEL=L1 -x FTBCKPT_LOCAL_ROLLBACK="$1" \
    "$bin/examples/stencil" --nx 1024 --ny 512 --iterations "$iterations" --checkpoint-every 50 >"$2" 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

plain=() logged=()
for ((p = 1; p <= pairs; p++)); do
  plain+=("$(run 0 "$logs/plain.out")")
  logged+=("$(run 1 "$logs/logged.out")")
  printf 'pair %d: without log %s s, with log %s s\n' "$p" "${plain[-1]}" "${logged[-1]}"
done
grep -h '^RESULT' "$logs/plain.out" "$logs/logged.out" | uniq -c | sed 's/^/  same answer? /'
a=$(printf '%s\n' "${plain[@]}" | median)
b=$(printf '%s\n' "${logged[@]}" | median)
printf 'median without the log %.3f s, with it %.3f s: overhead %.1f %%\n' "$a" "$b" \
  "$(awk -v a="$a" -v b="$b" 'BEGIN { print (b - a) * 100 / a }')"
echo "== the log's memory (last run)"
grep 'message log peak' "$logs/logged.out" | sort
