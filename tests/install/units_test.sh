#!/usr/bin/env bash
# The systemd units as installed: `systemd-analyze verify` (offline, no running
# systemd needed) on each unit of an install.sh tree, whose ExecStart= binaries
# exist there; then the properties operators rely on, unit by unit.
set -euo pipefail
root="${TEST_SRCDIR}/ftb"
work=$(mktemp -d /tmp/ftb-units-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze missing: run deploy/install-deps.sh (package systemd)"

prefix="$work/prefix"
bash "$root/deploy/install.sh" --from "$root" --prefix "$prefix" >/dev/null
units=("$prefix"/lib/systemd/system/*.service)
((${#units[@]} >= 3)) || fail "expected units for ftb-agent, ftb-ipmi and ftb-ib, got: ${units[*]}"

for unit in "${units[@]}"; do
  # verify prints problems on stderr and may still exit 0 for some: any output fails.
  out=$(systemd-analyze verify --man=no "$unit" 2>&1) || fail "$(basename "$unit"): $out"
  [[ -z "$out" ]] || fail "$(basename "$unit"): $out"
done

# Key=value must be present in unit $1.
want() { grep -qx "$2" "$prefix/lib/systemd/system/$1" || fail "$1 lacks '$2'"; }
for unit in ftb-agent.service ftb-ipmi.service ftb-ib.service; do
  want "$unit" "Restart=on-failure"
  want "$unit" "NoNewPrivileges=yes"
  want "$unit" "ProtectSystem=strict"
  want "$unit" "PrivateTmp=yes"
  want "$unit" "CapabilityBoundingSet="
done
for unit in ftb-agent.service ftb-ipmi.service ftb-ib.service; do
  want "$unit" "Type=notify"
  grep -qE "^WatchdogSec=[1-9]" "$prefix/lib/systemd/system/$unit" || fail "$unit has no watchdog"
done
for unit in ftb-agent.service ftb-ipmi.service ftb-ib.service; do
  # libzmq's I/O threads call sched_setscheduler, which ~@resources denies (SIGSYS).
  want "$unit" "SystemCallFilter=sched_setscheduler"
  grep -q '^ExecReload=/bin/kill' "$prefix/lib/systemd/system/$unit" && fail "$unit reloads with /bin/kill (procps)"
done
# A reload that reports the agent's answer, the Curve key as a credential.
grep -qE '^ExecReload=.*/ftb-agent --reload \$MAINPID$' "$prefix/lib/systemd/system/ftb-agent.service" ||
  fail "ftb-agent.service lacks ExecReload=ftb-agent --reload \$MAINPID"
want ftb-agent.service "LoadCredential=ftb-curve.key"
want ftb-agent.service "User=ftb"
want ftb-agent.service "RuntimeDirectory=ftb"
want ftb-ib.service "User=ftb"
want ftb-ipmi.service "DeviceAllow=/dev/ipmi0 rw"
echo "units test passed: ${#units[@]} units verified"
