#!/usr/bin/env bash
# The watchdog under a real systemd: an agent whose loop stops (SIGSTOP) stops
# feeding WATCHDOG=1, systemd kills it (Result=watchdog) and Restart=on-failure
# brings up a new one that serves. WatchdogSec is shortened by a drop-in, to
# 5 s: a healthy agent pings every 2.5 s, which a loaded machine keeps to.
source "$(dirname "$0")/container.sh"

ct_boot_with_packages
ct_await "agent active" 30 ct_unit_is ftb-agent ActiveState active
mkdir -p "$ct_root/etc/systemd/system/ftb-agent.service.d"
printf '[Service]\nWatchdogSec=5\n' >"$ct_root/etc/systemd/system/ftb-agent.service.d/test-watchdog.conf"
ct_exec systemctl daemon-reload
ct_restart ftb-agent || fail "restart with WatchdogSec=5 failed"
[[ "$(ct_prop ftb-agent WatchdogUSec)" == 5s ]] || fail "the drop-in's WatchdogSec=5 is not in effect: $(ct_prop ftb-agent WatchdogUSec)"
ct_exec ftbctl status >/dev/null || fail "agent not serving before the test"
restarts=$(ct_prop ftb-agent NRestarts)
stalled=$(ct_prop ftb-agent MainPID)

ct_sh "kill -STOP $stalled"
ct_await "a new agent after the watchdog fired" 60 \
  ct_sh "[ \$(systemctl show -P NRestarts ftb-agent) -gt $restarts ] && [ \$(systemctl show -P ActiveState ftb-agent) = active ]"
fresh=$(ct_prop ftb-agent MainPID)
[[ "$fresh" != "$stalled" && "$fresh" != 0 ]] || fail "MainPID still $stalled"
ct_await "systemd's report of a watchdog failure in the journal" 10 \
  ct_sh "journalctl -u ftb-agent -o cat | grep \"Failed with result 'watchdog'\" >/dev/null"
ct_exec ftbctl status >/dev/null || fail "the restarted agent does not serve"
echo "watchdog test passed: stalled agent $stalled replaced by $fresh"
