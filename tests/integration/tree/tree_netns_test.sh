#!/usr/bin/env bash
# Agents on three "hosts", each its own network namespace joined by veth links
# to a switch namespace: they form one tree over real (virtual) links, carry
# events across it, survive a cut link (each side keeps working) and merge
# again when the link comes back. Creates and removes its namespaces itself.
set -euo pipefail

AGENT="$1"
FTBCTL="$2"
NETNS_SWITCH="$3"
TAG="ftb$$"
SWITCH="${TAG}sw"
HOSTS=("${TAG}h0" "${TAG}h1" "${TAG}h2")
PIDS=()
TMP="$(mktemp -d /tmp/ftb-netns.XXXXXX)"

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  bash "$NETNS_SWITCH" down "${HOSTS[@]}" "$SWITCH"
  rm -rf "$TMP"
}
trap cleanup EXIT

if ! ip netns add "${TAG}probe" 2>/dev/null; then
  echo "SKIPPED: network namespaces cannot be created here (needs root and iproute2)"
  exit 0
fi
ip netns del "${TAG}probe"
bash "$NETNS_SWITCH" up "$SWITCH" "${HOSTS[0]}=10.254.0.1/24" "${HOSTS[1]}=10.254.0.2/24" "${HOSTS[2]}=10.254.0.3/24" >/dev/null

seed="tcp://10.254.0.1:10809"
for i in 0 1 2; do
  seeds=()
  [ "$i" -gt 0 ] && seeds=(--tree-seeds "$seed")
  ip netns exec "${HOSTS[$i]}" "$AGENT" --name "host$i" --ipc-endpoint "ipc://$TMP/h$i.sock" \
    --tcp-endpoint "tcp://10.254.0.$((i + 1)):10809" "${seeds[@]}" --tree-authentication insecure-none --log-level warn \
    > "$TMP/agent$i.log" 2>&1 &
  PIDS+=($!)
done

# ftbctl tree from host 2 must list all three agents (within 30 s: a loaded
# machine, an ftbctl process per look).
agents_in_tree() {
  ip netns exec "${HOSTS[2]}" "$FTBCTL" --agent "ipc://$TMP/h2.sock" --json tree 2>/dev/null |
    grep -o '"name": *"host[0-9]"' | sort -u | wc -l
}
wait_for_tree() {
  local want="$1"
  for _ in $(seq 1 300); do
    [ "$(agents_in_tree)" -eq "$want" ] && return 0
    sleep 0.1
  done
  echo "FAIL: the tree did not reach $want agents"; cat "$TMP"/agent*.log; return 1
}
wait_for_tree 3

# An event published on host 1 reaches a watcher on host 2 (through host 0, the root).
ip netns exec "${HOSTS[2]}" "$FTBCTL" --agent "ipc://$TMP/h2.sock" watch \
  --filter "event_space=FTB.NETNS" --count 1 --timeout 30 > "$TMP/watch.out" &
watcher=$!
# Publish until the watcher has it: its subscription crosses the tree asynchronously.
for _ in $(seq 1 150); do
  ip netns exec "${HOSTS[1]}" "$FTBCTL" --agent "ipc://$TMP/h1.sock" publish \
    --space FTB.NETNS --name CROSS_HOST --severity warning --payload across >/dev/null
  kill -0 "$watcher" 2>/dev/null || break
  sleep 0.2
done
wait "$watcher" || { echo "FAIL: the event did not cross namespaces"; exit 1; }
grep -q CROSS_HOST "$TMP/watch.out" && echo "ok: an event crossed from host1 to host2"

# Cut host 2 off: it carries on alone (its own root), then merges back.
ip -n "$SWITCH" link set p2 down
for _ in $(seq 1 300); do
  state=$(ip netns exec "${HOSTS[2]}" "$FTBCTL" --agent "ipc://$TMP/h2.sock" --json tree 2>/dev/null |
    grep -c '"state": *"root"' || true)
  [ "$(agents_in_tree)" -eq 1 ] && [ "$state" -ge 1 ] && break
  sleep 0.1
done
[ "$(agents_in_tree)" -eq 1 ] || { echo "FAIL: host2 did not carry on alone"; exit 1; }
echo "ok: host2 carries on as its own tree while cut off"
ip -n "$SWITCH" link set p2 up
wait_for_tree 3
echo "ok: the partition healed into one tree"
