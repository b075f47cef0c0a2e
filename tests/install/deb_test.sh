#!/usr/bin/env bash
# The Debian package on a fresh machine: deploy/package-deb.sh builds
# ftb_<version>_amd64.deb; apt installs it (pulling its Depends from Debian's
# archive) into a fresh Debian 12 root made by debootstrap (tests/install/fresh_root.sh,
# cached under /var/cache/ftb-test); its postinst creates the user ftb; then
# the installed ftb-agent runs in that root as user ftb, as its unit would, and
# the installed ftbctl publishes through it and finds the event in its history.
# Needs root (chroot, mount) and Debian's archive.
set -euo pipefail
# Bazel's test PATH lacks the sbin directories that chroot, dpkg and its maintainer scripts need.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
root="${TEST_SRCDIR}/ftb"
work=$(mktemp -d /tmp/ftb-deb-test-XXXXXX)
chmod 0755 "$work"  # user ftb must reach the root below it
fresh="$work/root"
agent_pid=""
cleanup() {
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; fi
  mountpoint -q "$fresh/proc" && umount "$fresh/proc"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "needs root (chroot): run the suite as root, as CI does"

deb=$(bash "$root/deploy/package-deb.sh" --from "$root" --out "$work")
[[ "$(basename "$deb")" =~ ^ftb_[0-9]+\.[0-9]+\.[0-9]+_amd64\.deb$ ]] || fail "package named '$deb'"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libzmq5 libprotobuf32 libsystemd0 libstdc++6; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
[[ "$(dpkg-deb -f "$deb" Architecture)" == amd64 ]] || fail "not amd64"
# grep -c reads everything: with pipefail, an early-exiting grep -q would fail the pipe.
[[ $(dpkg-deb -c "$deb" | grep -c ' ./usr/lib/systemd/system/ftb-agent.service$') -eq 1 ]] || fail "no unit in the package"

bash "$root/tests/install/fresh_root.sh" "$fresh"
chroot "$fresh" dpkg-query -W ftb >/dev/null 2>&1 && fail "the fresh root already has ftb"
mount -t proc proc "$fresh/proc"
cp "$deb" "$fresh/tmp/ftb.deb"
export DEBIAN_FRONTEND=noninteractive
# Package lists in the cached root may have aged past a point release: refresh once on failure.
if ! chroot "$fresh" apt-get install -y -q --no-install-recommends /tmp/ftb.deb >"$work/apt.log" 2>&1; then
  chroot "$fresh" apt-get update -q >>"$work/apt.log" 2>&1 ||
    { tail -30 "$work/apt.log" >&2; fail "apt-get update in the fresh root failed"; }
  chroot "$fresh" apt-get install -y -q --no-install-recommends /tmp/ftb.deb >>"$work/apt.log" 2>&1 ||
    { tail -30 "$work/apt.log" >&2; fail "apt could not install the package"; }
fi
chroot "$fresh" dpkg-query -W -f='${Status}' ftb | grep -q "install ok installed" || fail "ftb not installed"
chroot "$fresh" getent passwd ftb >/dev/null || fail "postinst did not create user ftb"
for bin in ftb-agent ftbctl ftb-ipmi ftb-ib; do
  chroot "$fresh" "/usr/bin/$bin" --help >/dev/null || fail "installed $bin --help failed (missing libraries?)"
done

# What the unit does: /run/ftb owned by ftb, the agent as ftb with the shipped configuration.
install -d -o "$(chroot "$fresh" id -u ftb)" -g "$(chroot "$fresh" id -g ftb)" "$fresh/run/ftb"
chroot --userspec=ftb:ftb "$fresh" /usr/bin/ftb-agent --config /etc/ftb/ftb-agent.conf \
  --tcp-endpoint none --ready-file /run/ftb/ready --log-level warn &
agent_pid=$!
for _ in $(seq 1 1000); do [[ -e "$fresh/run/ftb/ready" ]] && break; sleep 0.01; done
[[ -e "$fresh/run/ftb/ready" ]] || fail "the packaged ftb-agent did not become ready"
[[ "$(stat -c %u "$fresh/run/ftb/agent.sock")" == "$(chroot "$fresh" id -u ftb)" ]] || fail "agent.sock not owned by ftb"

chroot "$fresh" /usr/bin/ftbctl publish --space FTB.TEST.DEB --name DEB_INSTALLED --severity info \
  --payload 'from the package' || fail "ftbctl publish through the packaged agent failed"
[[ $(chroot "$fresh" /usr/bin/ftbctl history --json | grep -c DEB_INSTALLED) -gt 0 ]] ||
  fail "the packaged agent's history lacks the event"
echo "deb test passed: $(basename "$deb") installed in a fresh root; the agent ran from it"
