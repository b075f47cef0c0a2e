#!/usr/bin/env bash
# `systemctl stop` drains: events queued in the agent for a subscriber that is
# not reading (SIGSTOPped) when the stop begins still reach it once it reads
# again, before the agent exits; the agent exits 0 within TimeoutStopSec.
# Without the drain the agent would close its socket at once and the queued
# events would be lost (its socket's linger is 0 while it serves).
source "$(dirname "$0")/container.sh"

# 600 KB: well beyond what the kernel's socket buffer holds for the subscriber,
# so most of it waits inside the agent when the stop begins.
events=600
ct_boot_with_packages
# Keep the stopped subscriber's session: a client silent for client-timeout-ms is dropped.
sed -i 's/^client-timeout-ms = .*/client-timeout-ms = 60000/' "$ct_root/etc/ftb/ftb-agent.conf"
ct_restart ftb-agent || fail "agent restart failed"

ct_exec ftbctl --json watch --filter 'event_space=FTB.TEST.DRAIN' --count "$events" --timeout 60 --client-name drain-watch \
  >"$ct_work/watch.out" 2>"$ct_work/watch.err" &
watcher=$!  # a subshell; ftbctl runs below it, under nsenter
ct_await "the watcher subscribed" 30 ct_sh "ftbctl clients | grep drain-watch >/dev/null"
watch_pid=$(ct_descendant "$watcher" ftbctl) || fail "no ftbctl below process $watcher"
# nsenter stops itself while its child is stopped; it needs its own SIGCONT.
nsenter_pid=$(ct_descendant "$watcher" nsenter) || fail "no nsenter below process $watcher"
kill -STOP "$watch_pid"

payload=$(printf '%01000d' 0)
ct_exec ftbctl publish --space FTB.TEST.DRAIN --name DRAIN_TICK --severity info --payload "$payload" \
  --count "$events" >/dev/null || fail "ftbctl publish failed"
ct_exec systemctl stop --no-block ftb-agent
ct_await "the agent draining (deactivating)" 10 ct_unit_is ftb-agent ActiveState deactivating
kill -CONT "$watch_pid" "$nsenter_pid"

watch_status=0
wait "$watcher" || watch_status=$?
got=$(grep -c DRAIN_TICK "$ct_work/watch.out" || true)
((watch_status == 0)) || { cat "$ct_work/watch.err" >&2; fail "the watcher got $got of $events events (exit $watch_status)"; }
[[ "$got" == "$events" ]] || fail "the watcher got $got of $events events"
ct_await "the agent stopped" 20 ct_unit_is ftb-agent ActiveState inactive
[[ "$(ct_prop ftb-agent Result)" == success ]] || fail "stop result $(ct_prop ftb-agent Result)"
[[ "$(ct_prop ftb-agent ExecMainStatus)" == 0 ]] || fail "agent exit status $(ct_prop ftb-agent ExecMainStatus)"
ct_journal ftb-agent | grep 'still queued' >/dev/null && fail "the agent reports undelivered events"
echo "stop drain test passed: $got of $events events delivered during the stop"
