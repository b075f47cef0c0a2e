#!/bin/bash
# A cluster of network namespaces for the ULFM tier (run_through_test.sh):
#   lab_netns.sh up TAG NET NODE...   TAG-head holds a bridge at NET.1/24 and
#                                     node i (namespace TAG-NODE) is NET.(11+i),
#                                     a veth into it. No default route anywhere:
#                                     nothing can leave the lab.
#   lab_netns.sh down TAG NODE...     SIGKILL to whatever still runs in them
#                                     (all started by the test), then removes them.
# NET is three octets (10.252.7). Names resolve through the trixie root's
# /etc/hosts, which the test writes (the head as "head", every node).
set -euo pipefail
action=$1 tag=$2
shift 2
if [[ "$action" == up ]]; then
  net=$1
  shift
  ip netns add "$tag-head"
  ip -n "$tag-head" link set lo up
  ip -n "$tag-head" link add br0 type bridge
  ip -n "$tag-head" addr add "$net.1/24" dev br0
  ip -n "$tag-head" link set br0 up
  i=11
  for node in "$@"; do
    ip netns add "$tag-$node"
    ip -n "$tag-$node" link set lo up
    ip link add "$tag$node-a" type veth peer name "$tag$node-b"
    ip link set "$tag$node-a" netns "$tag-head"
    ip link set "$tag$node-b" netns "$tag-$node"
    ip -n "$tag-head" link set "$tag$node-a" master br0 up
    ip -n "$tag-$node" link set "$tag$node-b" name eth0
    ip -n "$tag-$node" addr add "$net.$i/24" dev eth0
    ip -n "$tag-$node" link set eth0 up
    i=$((i + 1))
  done
else
  for ns in "$tag-head" "${@/#/$tag-}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
fi
