#!/usr/bin/env bash
# Every ftb unit under a real systemd: apt installs the packages in a booted
# Debian 12 (their maintainer scripts enable and start the units), and each
# unit reaches "active" through Type=notify (READY=1 with a STATUS= line) and
# stays up: its hardening (SystemCallFilter=, ProtectSystem=, User=ftb ...) does
# not kill it. ftb-ipmi gets a BMC to watch (ipmi_sim in the container); ftb-ib
# runs on a node without HCAs, which it reports and then idles. Log lines reach
# the journal with their priority and without a second timestamp. With no
# cluster key (a fresh install) the agent forms no tree and says so.
source "$(dirname "$0")/container.sh"
source "$(dirname "$0")/bmc_sim.sh"

ct_boot_with_packages
ct_start_bmc
ct_restart ftb-ipmi.service ftb-ib.service || fail "systemctl restart ftb-ipmi ftb-ib failed"

for unit in ftb-agent ftb-ipmi ftb-ib; do
  ct_await "$unit active" 30 ct_unit_is "$unit" ActiveState active
  [[ "$(ct_prop "$unit" Type)" == notify ]] || fail "$unit is not Type=notify"
  [[ -n "$(ct_prop "$unit" StatusText)" ]] || fail "$unit sent no STATUS= with its READY=1"
  [[ "$(ct_prop "$unit" NRestarts)" == 0 ]] || fail "$unit restarted $(ct_prop "$unit" NRestarts) times"
  echo "ok: $unit active ($(ct_prop "$unit" StatusText))"
done
# ftb-ipmi reads the BMC: the session with it is logged once open.
ct_await "ftb-ipmi's session with node1" 30 ct_sh "journalctl -u ftb-ipmi -o cat | grep 'node1 (127.0.0.1:9001): session open' >/dev/null"

# The agent serves its clients as user ftb, on /run/ftb/agent.stream (no ZeroMQ IPC by default).
ct_exec ftbctl status >/dev/null || fail "ftbctl status against the packaged agent failed"
ct_exec test ! -e /run/ftb/agent.sock || fail "the packaged agent listens on ZeroMQ IPC, off by default"
[[ "$(ct_exec stat -c %U /run/ftb/agent.stream)" == ftb ]] || fail "agent.stream is not owned by user ftb"
ct_await "ftb-ipmi and ftb-ib connected to the agent" 30 \
  ct_sh "ftbctl clients | grep ftb-ipmi >/dev/null && ftbctl clients | grep ftb-ib >/dev/null"

# Still up once every thread has started (BMC sessions, agent connections): no SIGSYS later.
for unit in ftb-agent ftb-ipmi ftb-ib; do
  ct_unit_is "$unit" ActiveState active || fail "$unit left active: $(ct_prop "$unit" Result)"
  ct_unit_is "$unit" NRestarts 0 || fail "$unit restarted"
done

# As installed, with no cluster key, the agent forms no tree and says which step enables it.
ct_sh "journalctl -u ftb-agent -o cat -p warning | grep 'tree off: no cluster key.*ftbctl keygen' >/dev/null" ||
  fail "no 'tree off' line naming the step: $(ct_journal ftb-agent | grep -i tree)"
# (captured first: grep -q would stop reading early, and pipefail report the SIGPIPE)
checked=$(ct_exec ftb-agent --config /etc/ftb/ftb-agent.conf --check-config 2>&1) ||
  fail "--check-config refused the installed configuration: $checked"
grep -q 'tree off: no cluster key' <<<"$checked" || fail "--check-config does not say that the tree is off: $checked"

# Journal priorities: the agent's start line at info, no timestamp of its own.
line=$(ct_exec journalctl -u ftb-agent -o cat -p info --grep 'serving on' | tail -1)
[[ -n "$line" ]] || fail "no 'serving on' line at priority info or higher"
[[ "$line" != \[20* ]] || fail "the journal line carries a second timestamp: $line"
[[ -z "$(ct_exec journalctl -u ftb-agent -o cat -p warning --grep 'serving on')" ]] ||
  fail "'serving on' logged above info: priorities are not passed"
echo "units active test passed"
