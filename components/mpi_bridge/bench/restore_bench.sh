#!/usr/bin/env bash
# Restore time of a lost node against group size: ckpt_bench on G ranks, one
# per "node", in groups of G (L3: XOR over G-1 data segments; L4: Reed-Solomon
# with 2 parity symbols), node n0's memory wiped, its rank rebuilt by the
# group. Figures only; nothing is asserted.
#   bazel run -c opt //components/mpi_bridge/bench:restore_bench -- [MiB per rank] [group sizes...]
# CKPT_BENCH=path runs another build of ckpt_bench (an A/B in one run).
set -euo pipefail
mib=${1:-32}
shift || true
sizes=("$@")
((${#sizes[@]})) || sizes=(2 3 4 6 8)
here=$(cd "$(dirname "$0")" && pwd)
bin=${CKPT_BENCH:-${RUNFILES_DIR:-$0.runfiles}/ftb/components/mpi_bridge/bench/ckpt_bench}
[[ -x $bin ]] || bin=$here/ckpt_bench
export OMPI_MCA_rmaps_base_oversubscribe=1 TMPDIR=/tmp
# The environment that bounds these figures (bench/environment.h), before any rank starts.
"${RUNFILES_DIR:-$0.runfiles}/ftb/bench/print_environment" || echo "environment: ? (no bench/print_environment)"
printf '%-6s %-5s %12s %14s\n' group level "rebuild GB/s" "restore s"
for g in "${sizes[@]}"; do
  map=$(for ((r = 0; r < g; r++)); do printf 'n%d,' "$r"; done)
  levels=3
  ((g >= 4)) && levels=34
  mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -np "$g" -x FTBCKPT_NODE_MAP="${map%,}" \
    -x FTBCKPT_GROUP_SIZE="$g" -x FTBCKPT_RS_M=2 "$bin" "$mib" 1 "$levels" |
    awk -v g="$g" -v mib="$mib" '/^L[34] / { printf "%-6s %-5s %12s %14.3f\n", g, $1, $6, mib * 1048576 / ($6 * 1e9) }'
done
