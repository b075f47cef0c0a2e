#!/usr/bin/env bash
# docs/SECURITY.md's Curve setup under systemd, followed literally: the shell
# block of its section "Under systemd (the packaged units)" is run as root in
# a booted Debian with the packages installed. Then the agent runs as user ftb
# with Curve on (its root-only key handed over by LoadCredential=), refuses TCP
# peers without Curve, still serves local clients, forms a tree (its PING
# thread real-time where the platform allows), and reloads.
# First, the failure the section avoids: the root-only key named directly makes
# the agent fail with the reason (errno text) and the hint.
source "$(dirname "$0")/container.sh"

doc="$ct_runfiles/docs/SECURITY.md"
steps=$(awk '/^### Under systemd \(the packaged units\)/ { on = 1; next }
             on && /^#/ { exit }
             on && /^```sh$/ { code = 1; next }
             on && /^```$/ { code = 0; next }
             on && code { print }' "$doc")
[[ -n "$steps" ]] || fail "no sh block under 'Under systemd (the packaged units)' in docs/SECURITY.md"

ct_boot_with_packages
ct_await "agent active" 30 ct_unit_is ftb-agent ActiveState active

# The key read directly by the agent (user ftb): refused with errno and hint.
ct_sh "ftbctl keygen --out /root/direct >/dev/null"
conf="$ct_root/etc/ftb/ftb-agent.conf"
sed -i 's|^curve-key-file = .*|curve-key-file = "/root/direct.key"|' "$conf"
ct_exec systemctl restart ftb-agent && fail "the agent started with a key it cannot read"
ct_await "the refusal in the journal" 10 \
  ct_sh "journalctl -u ftb-agent -o cat | grep 'cannot read Curve key file /root/direct.key: Permission denied.*LoadCredential=' >/dev/null"
sed -i 's|^curve-key-file = .*|curve-key-file = ""|' "$conf"
ct_exec systemctl reset-failed ftb-agent

echo "--- docs/SECURITY.md, run as root:"
echo "$steps"
ct_exec /bin/bash -euxo pipefail -c "$steps" || fail "the steps of docs/SECURITY.md failed"

ct_await "agent active with Curve" 30 ct_unit_is ftb-agent ActiveState active
public=$(cat "$ct_root/etc/ftb/cluster.pub")
ct_await "'Curve on' with the cluster's public key" 10 \
  ct_sh "journalctl -u ftb-agent -o cat | grep -F 'Curve on: TCP clients and tree links need an authorized key (this agent'\''s public key $public)' >/dev/null"
[[ "$(ct_exec stat -c %U /etc/credstore/ftb-curve.key)" == root ]] || fail "the key in /etc/credstore is not root's"
[[ "$(ct_exec stat -c %a /etc/credstore/ftb-curve.key)" == 600 ]] || fail "the key in /etc/credstore is not mode 600"
# With the tree on, the thread that answers its liveness PINGs runs real-time as user ftb
# wherever a unit with LimitRTPRIO=1 may (RestrictRealtime=no, no capability).
# A kernel with CONFIG_RT_GROUP_SCHED gives a service's cgroup no real-time
# budget, and refuses (this VM's kernel does): the agent must then say so, and run.
if ct_exec systemd-run --quiet --wait --pipe -p User=ftb -p LimitRTPRIO=1 chrt -r 1 true; then
  expected='real-time scheduling, SCHED_RR 1'
else
  expected='normal scheduling: real-time was refused'
fi
echo "this platform: a unit with LimitRTPRIO=1 gets '$expected'"
ct_sh "journalctl -u ftb-agent -o cat | grep 'liveness PINGs.*$expected' >/dev/null" ||
  fail "the agent's PING thread: want '$expected', got: $(ct_journal ftb-agent | grep 'liveness PINGs')"

ct_exec ftbctl status >/dev/null || fail "local clients (IPC) cannot reach the Curve agent"
ct_exec ftbctl --agent tcp://127.0.0.1:10809 --timeout-ms 3000 status >/dev/null 2>&1 &&
  fail "a TCP client without Curve was served"
ct_exec ftb-agent --config /etc/ftb/ftb-agent.conf --check-config >/dev/null || fail "--check-config by root refuses the running setup"
ct_exec systemctl reload ftb-agent || fail "reload with Curve on failed"
ct_unit_is ftb-agent NRestarts 0 || fail "the agent restarted"
echo "curve setup test passed"
