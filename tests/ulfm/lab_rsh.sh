#!/bin/bash
# PRRTE's ssh agent in the ULFM tier's lab (run_through_test.sh), run inside the
# trixie root: `lab_rsh.sh NODE COMMAND...` runs COMMAND as a shell command on
# NODE: in its network namespace ($FTB_LAB_TAG-NODE), with its own hostname
# (Open MPI tells nodes apart by it) and its own /dev/shm (a node's memory:
# what its ranks leave there is on that node only).
node=$1
shift
exec nsenter --net="/run/netns/$FTB_LAB_TAG-$node" unshare --uts --mount --propagation unchanged /bin/bash -c '
  hostname "$0"
  mount -t tmpfs tmpfs /dev/shm
  exec /bin/bash -c "$1"' "$node" "$*"
