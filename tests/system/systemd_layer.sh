#!/usr/bin/env bash
# Makes, once, the cached root of the real-systemd tier: tests/install/fresh_root.sh's
# minimal Debian 12 root plus systemd, systemd-sysv and openipmi (ipmi_sim), as
# the tarball /var/cache/ftb-test/bookworm-systemd-v1.tar; prints its path.
# Later runs find it and return at once. Exit 3: it cannot be made here (no
# debootstrap, Debian's archive unreachable): the last line of stderr says why.
# Used by container.sh, and by tests/warm_caches.sh ahead of the tests.
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cache=/var/cache/ftb-test
# Bump when the package list changes: a new cache file is built.
layer=$cache/bookworm-systemd-v1.tar
packages=(systemd systemd-sysv openipmi)
fresh_root=$(dirname "$0")/../install/fresh_root.sh

cant() { echo "systemd_layer: $*" >&2; exit 3; }

mkdir -p "$cache"
exec 8>"$cache/systemd-layer.lock"
flock 8  # one builder at a time; others wait and then reuse it
if [[ ! -s "$layer" ]]; then
  build=$(mktemp -d "$cache/build-systemd-XXXXXX")
  log=$cache/systemd-layer.log
  trap 'mountpoint -q "$build/proc" && umount "$build/proc"; rm -rf "$build"' EXIT
  bash "$fresh_root" "$build" >"$log" 2>&1 ||
    cant "cannot make the fresh Debian root (debootstrap/Debian's archive): $(tail -1 "$log")"
  mount -t proc proc "$build/proc"
  install() {
    DEBIAN_FRONTEND=noninteractive chroot "$build" apt-get install -y -q --no-install-recommends "${packages[@]}" \
      >>"$log" 2>&1
  }
  if ! install; then
    chroot "$build" apt-get update -q >>"$log" 2>&1 || true
    install || cant "cannot install ${packages[*]} from Debian's archive: $(tail -1 "$log")"
  fi
  umount "$build/proc"
  chroot "$build" apt-get clean
  tar -C "$build" -cf "$layer.tmp" .
  mv "$layer.tmp" "$layer"
fi
echo "$layer"
