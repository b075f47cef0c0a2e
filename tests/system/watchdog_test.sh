#!/usr/bin/env bash
# The watchdog under a real systemd: an agent whose loop stops (SIGSTOP) stops
# feeding WATCHDOG=1, systemd kills it (Result=watchdog) and Restart=on-failure
# brings up a new one that serves. WatchdogSec is shortened by a drop-in.
source "$(dirname "$0")/container.sh"

ct_boot_with_packages
ct_await "agent active" 30 ct_unit_is ftb-agent ActiveState active
mkdir -p "$ct_root/etc/systemd/system/ftb-agent.service.d"
printf '[Service]\nWatchdogSec=3\n' >"$ct_root/etc/systemd/system/ftb-agent.service.d/test-watchdog.conf"
ct_exec systemctl daemon-reload
ct_exec systemctl restart ftb-agent || fail "restart with WatchdogSec=3 failed"
[[ "$(ct_prop ftb-agent WatchdogUSec)" == 3s ]] || fail "the drop-in's WatchdogSec=3 is not in effect: $(ct_prop ftb-agent WatchdogUSec)"
ct_exec ftbctl status >/dev/null || fail "agent not serving before the test"
restarts=$(ct_prop ftb-agent NRestarts)
stalled=$(ct_prop ftb-agent MainPID)

ct_sh "kill -STOP $stalled"
ct_await "a new agent after the watchdog fired" 30 \
  ct_sh "[ \$(systemctl show -P NRestarts ftb-agent) -gt $restarts ] && [ \$(systemctl show -P ActiveState ftb-agent) = active ]"
fresh=$(ct_prop ftb-agent MainPID)
[[ "$fresh" != "$stalled" && "$fresh" != 0 ]] || fail "MainPID still $stalled"
ct_journal ftb-agent | grep -q "Failed with result 'watchdog'" || fail "systemd did not report a watchdog failure"
ct_exec ftbctl status >/dev/null || fail "the restarted agent does not serve"
echo "watchdog test passed: stalled agent $stalled replaced by $fresh"
