#!/bin/bash
# enter_root.sh ROOT COMMAND...: runs COMMAND in the trixie root ROOT with a
# clean environment, in its own mount and PID namespaces (proc, sys, dev, a
# private /tmp and /dev/shm), so nothing leaks to the host and killing this
# process ends everything started in the root (--kill-child).
# /dev/shm is a fresh tmpfs, or the host directory $FTB_ROOT_SHM when set: a
# "node's" memory that outlives one mpirun, as a real node's does across a
# relaunch. $FTB_ROOT_AGENT_DIR, when set, appears as /run/ftb-agent (the
# directory of the host agent's IPC socket). $FTB_ROOT_NETNS, when set: the
# command runs in that network namespace, and the host's /run/netns appears
# as the root's (the lab's nodes: tests/lib/netns_switch.sh, lab_rsh.sh).
set -euo pipefail
root=$1
shift
in_netns=()
[[ -n "${FTB_ROOT_NETNS:-}" ]] && in_netns=(ip netns exec "$FTB_ROOT_NETNS")
exec "${in_netns[@]}" unshare --mount --pid --fork --kill-child --propagation private -- /bin/bash -c '
  set -e
  r=$1 shm=$2 agent=$3 netns=$4
  shift 4
  mount -t proc proc "$r/proc"
  mount --rbind /sys "$r/sys"
  mount --rbind /dev "$r/dev"
  if [[ -n "$shm" ]]; then mount --bind "$shm" "$r/dev/shm"; else mount -t tmpfs -o size=4g tmpfs "$r/dev/shm"; fi
  mount -t tmpfs tmpfs "$r/tmp"
  if [[ -n "$agent" ]]; then mkdir -p "$r/run/ftb-agent"; mount --bind "$agent" "$r/run/ftb-agent"; fi
  if [[ -n "$netns" ]]; then mkdir -p "$r/run/netns"; mount --rbind /run/netns "$r/run/netns"; fi
  exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
' enter_root "$root" "${FTB_ROOT_SHM:-}" "${FTB_ROOT_AGENT_DIR:-}" "${FTB_ROOT_NETNS:-}" "$@"
