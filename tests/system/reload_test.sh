#!/usr/bin/env bash
# `systemctl reload ftb-agent` under a real systemd: a good file is applied
# (exit 0), a bad file fails the reload (non-zero) and the agent keeps its whole
# current configuration, in the same process; the refusal is in the journal at
# priority err.
source "$(dirname "$0")/container.sh"

set_key() {
  local conf="$ct_root/etc/ftb/ftb-agent.conf"
  sed -i "s|^$1 = .*|$1 = $2|" "$conf"
  grep -qxF "$1 = $2" "$conf" || fail "cannot set $1 in the config"
}
# Publishes $1 events and prints how many the agent's history holds.
publish_and_count() {
  ct_exec ftbctl publish --space FTB.TEST.RELOAD --name RELOAD_TICK --severity info --payload x --count "$1" >/dev/null ||
    fail "ftbctl publish failed"
  ct_exec ftbctl --json history | grep -c RELOAD_TICK || true
}

ct_boot_with_packages
ct_await "agent active" 30 ct_unit_is ftb-agent ActiveState active
pid=$(ct_prop ftb-agent MainPID)

set_key history-events 3
ct_exec systemctl reload ftb-agent || fail "reload with a good file failed"
# Awaited: journald reads the agent's stderr on its own time, after the reload returned.
ct_await "the good file applied, in the journal" 10 \
  ct_sh "journalctl -u ftb-agent -o cat | grep 'configuration reloaded: history-events 10000->3' >/dev/null"
[[ "$(publish_and_count 5)" == 3 ]] || fail "history not trimmed to 3 events after the reload"

set_key history-events banana
ct_exec systemctl reload ftb-agent && fail "reload with history-events = banana succeeded"
[[ "$(ct_prop ftb-agent MainPID)" == "$pid" ]] || fail "the agent was restarted by a failed reload"
ct_unit_is ftb-agent ActiveState active || fail "the agent is not active after a refused reload"
ct_await "the refusal in the journal at priority err" 10 \
  ct_sh "journalctl -u ftb-agent -o cat -p err | grep 'configuration not reloaded.*banana' >/dev/null"
[[ "$(publish_and_count 5)" == 3 ]] || fail "the refused reload changed the history limit"

printf 'publish * user=no-such-user-ftbtest\n' >"$ct_root/etc/ftb/broken.policy"
set_key history-events 4
set_key policy-file '"/etc/ftb/broken.policy"'
ct_exec systemctl reload ftb-agent && fail "reload with a broken policy file succeeded"
[[ "$(publish_and_count 5)" == 3 ]] || fail "a reload refused for its policy applied history-events = 4"

set_key policy-file '""'
ct_exec systemctl reload ftb-agent || fail "reload with the file fixed failed"
[[ "$(publish_and_count 5)" == 4 ]] || fail "history-events = 4 not applied after the fix"
[[ "$(ct_prop ftb-agent MainPID)" == "$pid" ]] || fail "the agent process changed"
echo "reload test passed"
