#!/usr/bin/env bash
# ftb-ipmi under a real systemd against a real BMC peer: OpenIPMI's ipmi_sim
# inside the container (ftb's test BMC, components/ipmi/sim), watched over
# IPMI LAN 2.0. FAN1 dropped to 0 RPM on the simulator's console becomes an
# FTB_IPMI_FANFAIL event for node1 that `ftbctl watch` sees.
source "$(dirname "$0")/container.sh"
source "$(dirname "$0")/bmc_sim.sh"

ct_boot_with_packages
ct_start_bmc
ct_restart ftb-ipmi || fail "systemctl restart ftb-ipmi failed"
ct_await "ftb-ipmi active" 30 ct_unit_is ftb-ipmi ActiveState active
ct_await "ftb-ipmi's session with node1" 30 ct_sh "journalctl -u ftb-ipmi -o cat | grep 'node1 (127.0.0.1:9001): session open' >/dev/null"

ct_bmc_command "sensor_set_value 0x20 0 3 0 1"
# --last replays what the agent already has, so the event counts whenever it came.
ct_exec ftbctl --json watch --filter 'event_name=FTB_IPMI_FANFAIL' --count 1 --last 100 --timeout 60 \
  >"$ct_work/fan.out" 2>"$ct_work/fan.err" || { cat "$ct_work/fan.err" >&2; fail "no FTB_IPMI_FANFAIL within 60 s"; }
grep -q node1 "$ct_work/fan.out" || fail "the fan event does not name node1: $(cat "$ct_work/fan.out")"
grep -q FAN1 "$ct_work/fan.out" || fail "the fan event does not name FAN1: $(cat "$ct_work/fan.out")"
ct_unit_is ftb-ipmi NRestarts 0 || fail "ftb-ipmi restarted"
echo "ipmi fan test passed: $(head -c 300 "$ct_work/fan.out")"
