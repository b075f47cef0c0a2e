#!/bin/bash
# ftb-run's --mpirun in the ULFM tier: Open MPI 5's mpirun inside the trixie
# root $FTB_ULFM_ROOT, given the arguments ftb-run builds, with one change:
# the tier's "nodes" are names (FTBCKPT_NODE_MAP), all on this one machine, so
# `--host a:k,b:m` becomes `--host localhost:<k+m>` and a rankfile's
# `--map-by rankfile:file=F` becomes `--map-by slot`; and ftb-run's rank
# wrapper (`<ftb-run> --rank-exec --`) is a host binary that cannot run in the
# root, so it is dropped (the runtime then names each rank's node from
# FTBCKPT_NODE_MAP, which ftb-run exports too). The variables ftb-run exports
# (`-x NAME`, `-x NAME=VALUE`) are carried into the root's clean environment.
# Appends its pid to $FTB_ULFM_PIDS (the test's cleanup ends what is left by
# it: killing this process ends the root's namespace).
set -euo pipefail
root=${FTB_ULFM_ROOT:?FTB_ULFM_ROOT: the trixie root}
[[ -n "${FTB_ULFM_PIDS:-}" ]] && echo $$ >>"$FTB_ULFM_PIDS"
args=() env=()
while (($#)); do
  case "$1" in
    --host)
      slots=0
      IFS=, read -ra hosts <<<"$2"
      for h in "${hosts[@]}"; do slots=$((slots + ${h##*:})); done
      args+=(--host "localhost:$slots")
      shift 2
      ;;
    -x)
      if [[ "$2" == *=* ]]; then env+=("$2"); else env+=("$2=${!2-}"); fi
      args+=(-x "${2%%=*}")
      shift 2
      ;;
    --map-by)
      # A rankfile names the tier's nodes: all are this machine.
      [[ "$2" == rankfile:file=* ]] && args+=(--map-by slot) || args+=(--map-by "$2")
      shift 2
      ;;
    --rank-exec)
      [[ "${2:-}" == -- ]] || { echo "mpirun_in_root: --rank-exec without --" >&2; exit 2; }
      unset 'args[-1]'  # the wrapper's path
      shift 2
      ;;
    *)
      args+=("$1")
      shift
      ;;
  esac
done
exec bash "$(dirname "$0")/enter_root.sh" "$root" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 \
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${env[@]}" \
  mpirun --oversubscribe --mca btl self,sm,tcp --mca btl_tcp_if_include lo "${args[@]}"
