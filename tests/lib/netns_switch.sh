#!/bin/bash
# Hosts on one machine: network namespaces joined by veth links to a bridge
# in a switch namespace. Used by the tests that need several "hosts"
# (tests/integration/tree/tree_netns_test.sh, tests/ulfm's lab).
#   netns_switch.sh up SWITCH[=ADDR/NN] NS=ADDR/NN...
#       SWITCH holds bridge br0 (with ADDR when given: the switch is a host
#       too); every NS gets eth0 with ADDR, a veth whose other end is port
#       p<i> of the bridge (i counts the NS arguments from 0: a test cuts a
#       host's link with `ip -n SWITCH link set p<i> down`). No namespace has
#       a default route: nothing leaves the switch.
#   netns_switch.sh down SWITCH NS...
#       SIGKILL to whatever still runs in them (the test's own processes),
#       then deletes them. Never fails.
set -euo pipefail
action=$1
shift
if [[ "$action" == down ]]; then
  for ns in "$@"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  exit 0
fi
switch=${1%%=*}
ip netns add "$switch"
ip -n "$switch" link set lo up
ip -n "$switch" link add br0 type bridge
[[ "$1" == *=* ]] && ip -n "$switch" addr add "${1#*=}" dev br0
ip -n "$switch" link set br0 up
shift
i=0
for host in "$@"; do
  ns=${host%%=*}
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add "v$$-$i" netns "$ns" type veth peer name "p$i" netns "$switch"
  ip -n "$ns" link set "v$$-$i" name eth0
  ip -n "$ns" addr add "${host#*=}" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$switch" link set "p$i" master br0 up
  i=$((i + 1))
done
