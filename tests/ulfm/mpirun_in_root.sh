#!/bin/bash
# ftb-run's --mpirun in the ULFM tier: Open MPI 5's mpirun inside the trixie
# root $FTB_ULFM_ROOT, given the arguments ftb-run builds.
# On one machine (the default), the tier's "nodes" are names
# (FTBCKPT_NODE_MAP), so `--host a:k,b:m` becomes `--host localhost:<k+m>` and
# a rankfile's `--map-by rankfile:file=F` becomes `--map-by slot`.
# In the lab ($FTB_LAB_TAG set: network namespaces, run_through_test.sh) the
# nodes are real hosts: mpirun runs in the head's namespace
# ($FTB_ROOT_NETNS, enter_root.sh) and reaches them through lab_rsh.sh, the
# arguments as ftb-run built them.
# Either way ftb-run's rank wrapper (`<ftb-run> --rank-exec --`) is a host
# binary that cannot run in the root, so it is dropped (the runtime then
# names each rank's node from FTBCKPT_NODE_MAP, which ftb-run exports too),
# and the variables ftb-run exports (`-x NAME`, `-x NAME=VALUE`) are carried
# into the root's clean environment. Appends its pid to $FTB_ULFM_PIDS (the
# test's cleanup ends what is left by it: killing this process ends the
# root's namespace).
set -euo pipefail
root=${FTB_ULFM_ROOT:?FTB_ULFM_ROOT: the trixie root}
[[ -n "${FTB_ULFM_PIDS:-}" ]] && echo $$ >>"$FTB_ULFM_PIDS"
args=() env=()
while (($#)); do
  case "$1" in
    --host)
      if [[ -n "${FTB_LAB_TAG:-}" ]]; then args+=("$1" "$2"); shift 2; continue; fi
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
      if [[ "$2" != rankfile:file=* ]]; then
        args+=("$1" "$2")
      elif [[ -z "${FTB_LAB_TAG:-}" ]]; then
        args+=(--map-by slot)  # the rankfile's nodes are all this machine
      else
        cp "${2#rankfile:file=}" "$root/src/ftb-run.rankfile"  # where mpirun, in the root, reads it
        args+=(--map-by rankfile:file=/src/ftb-run.rankfile)
      fi
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
network=(--mca btl_tcp_if_include lo)
if [[ -n "${FTB_LAB_TAG:-}" ]]; then
  env+=(FTB_LAB_TAG="$FTB_LAB_TAG")
  network=(--mca btl_tcp_if_exclude lo --prtemca oob_tcp_if_exclude lo --prtemca plm_ssh_agent /src/lab_rsh.sh)
fi
exec bash "$(dirname "$0")/enter_root.sh" "$root" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 \
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${env[@]}" \
  mpirun --oversubscribe --mca btl self,sm,tcp "${network[@]}" "${args[@]}"
