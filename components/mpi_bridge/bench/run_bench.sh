#!/usr/bin/env bash
# The mpi_bridge benchmark: checkpoint/restart throughput per level against
# memcpy (ckpt_bench), then the stencil's overhead with a checkpoint every N
# iterations. Figures only; nothing is asserted.
#   bazel run -c opt //components/mpi_bridge/bench:run_bench -- [ranks] [MiB per rank] [nodes]
# Ranks are dealt round-robin over the "nodes"; groups of 4 on distinct nodes
# (with 4 nodes: XOR over 3 data segments, Reed-Solomon with 2 parity).
set -euo pipefail
ranks=${1:-4}
mib=${2:-64}
nodes=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
bin=${RUNFILES_DIR:-$0.runfiles}/ftb/components/mpi_bridge
[[ -x $bin/bench/ckpt_bench ]] || bin=$here/..
map=$(for ((r = 0; r < ranks; r++)); do printf 'n%d,' $((r % nodes)); done)
map=${map%,}
flush=$(mktemp -d /tmp/ftbckpt-bench-XXXXXX)
trap 'rm -rf "$flush"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 TMPDIR=/tmp
mpi() { mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$ranks" -x FTBCKPT_NODE_MAP="$map" "$@"; }

# The environment that bounds these figures (bench/environment.h), before any rank starts.
"${RUNFILES_DIR:-$0.runfiles}/ftb/bench/print_environment" || echo "environment: ? (no bench/print_environment)"
echo "== checkpoint and restart throughput ($ranks ranks on $nodes nodes, groups of up to 4, $(nproc) cores)"
mpi -x FTBCKPT_FLUSH_DIR="$flush" -x FTBCKPT_GROUP_SIZE=4 -x FTBCKPT_RS_M=2 "$bin/bench/ckpt_bench" "$mib" 5

echo "== stencil overhead (1024 x 512 doubles per rank, 200 iterations, best of 3)"
# Best of three runs: one run of a second on a shared machine is mostly noise.
stencil() {
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    mpi -x FTB_JOB_ID=BENCHST -x FTBCKPT_AGENT=0 -x FTBCKPT_LEVEL="$1" "$bin/examples/stencil" \
      --nx 1024 --ny 512 --iterations 200 --checkpoint-every "$2" > /dev/null
    end=$(date +%s.%N)
    best=$(awk -v a="$start" -v b="$end" -v best="$best" 'BEGIN { t = b - a; print (best == "" || t < best) ? t : best }')
  done
  echo "$best"
}
base=$(stencil L1 0)
printf '%-28s %8.2f s\n' "no checkpoint" "$base"
for level in L1 L3 L4; do
  for every in 50 10; do
    t=$(stencil "$level" "$every")
    printf '%-28s %8.2f s  overhead %5.1f %%\n' "$level every $every iterations" "$t" "$(awk -v t="$t" -v b="$base" 'BEGIN { print (t - b) * 100 / b }')"
  done
done

# A dedicated encoder per node (FTBCKPT_ENCODER=node) on a core of its own, as
# FTI gives its head one: every process starts on CPU 0, the encoders move to
# CPU 1 (FTBCKPT_ENCODER_CPUS), so the application has one core either way and
# only the encoding moves off its critical path. Each overhead is against the
# bare run with the same processes started (the encoders' start-up is not a
# checkpoint cost). Needs 2 cores.
if (($(nproc) >= 2)); then
  echo "== encoding off the critical path ($ranks ranks on CPU 0, 1022 x 2046 doubles per rank, L3 every 10 of 100 iterations, best of 3)"
  enc_map=$(for ((r = 0; r < ranks + nodes; r++)); do printf 'n%d,' $((r % nodes)); done)
  enc_map=${enc_map%,}
  on_cpu0() {  # NP MAP ENV...: best of three
    local np=$1 m=$2 best=""
    shift 2
    for _ in 1 2 3; do
      local start end env=()
      for e in "$@"; do env+=(-x "$e"); done
      start=$(date +%s.%N)
      taskset -c 0 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np "$np" \
        -x FTBCKPT_NODE_MAP="$m" -x FTB_JOB_ID=BENCHENC -x FTBCKPT_AGENT=0 "${env[@]}" \
        "$bin/examples/stencil" --nx 1022 --ny 2046 --iterations 100 > /dev/null
      end=$(date +%s.%N)
      best=$(awk -v a="$start" -v b="$end" -v best="$best" 'BEGIN { t = b - a; print (best == "" || t < best) ? t : best }')
    done
    echo "$best"
  }
  line() { printf '%-52s %8.2f s  overhead %5.1f %%\n' "$1" "$2" "$(awk -v t="$2" -v b="$3" 'BEGIN { print (t - b) * 100 / b }')"; }
  bare=$(on_cpu0 "$ranks" "$map")
  printf '%-52s %8.2f s\n' "no checkpoint" "$bare"
  line "L1 every 10" "$(on_cpu0 "$ranks" "$map" FTBCKPT_LEVEL=L1 FTBCKPT_INTERVAL=10)" "$bare"
  line "L3 every 10, each rank encodes" "$(on_cpu0 "$ranks" "$map" FTBCKPT_LEVEL=L3 FTBCKPT_INTERVAL=10)" "$bare"
  enc=(FTBCKPT_ENCODER=node FTBCKPT_ENCODER_CPUS=1)
  bare_enc=$(on_cpu0 $((ranks + nodes)) "$enc_map" "${enc[@]}")
  printf '%-52s %8.2f s\n' "no checkpoint, encoders started" "$bare_enc"
  line "L3 every 10, node encoders on CPU 1" "$(on_cpu0 $((ranks + nodes)) "$enc_map" "${enc[@]}" FTBCKPT_LEVEL=L3 FTBCKPT_INTERVAL=10)" "$bare_enc"
fi
