#!/usr/bin/env bash
# deps_root.sh DEBS_DIR: prints the path of a cached, unpacked root for the
# real-systemd tier: systemd_layer.sh's root with every dependency of the
# .debs in DEBS_DIR installed (Debian's gcc, Open MPI, ZeroMQ ... about 120
# packages), but not the .debs themselves. Each test of the tier boots it
# through an overlay (container.sh) and installs ftb's packages inside the
# running system, so what the test checks (apt, the maintainer scripts under
# systemd) still happens every time, while unpacking and configuring the
# dependencies happens once per dependency set instead of once per test.
#
# Kept under /var/cache/ftb-test/system-roots/<hash of the layer and of the
# relations>, made under a lock (other tests wait, then reuse it); roots not
# used for a day are removed. Exit 3: it cannot be made here (the last line
# of stderr says why); exit 1: Debian's archive cannot satisfy the relations.
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
debs=$1
cache=/var/cache/ftb-test
roots=$cache/system-roots

cant() { echo "deps_root: $*" >&2; exit 3; }

layer=$(bash "$(dirname "$0")/systemd_layer.sh") || exit $?

# The relations of ftb's packages on other packages, one a line: ftb's own
# (ftb-ipmi's on ftb-agent, ...) are left to the install inside the container.
own=" $(for deb in "$debs"/*.deb; do dpkg-deb -f "$deb" Package; done | tr '\n' ' ')"
relations=$(
  for deb in "$debs"/*.deb; do
    dpkg-deb -f "$deb" Pre-Depends
    dpkg-deb -f "$deb" Depends
  done | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$' | while read -r relation; do
    name=${relation%%[ :(]*}
    [[ "$own" == *" $name "* ]] || echo "$relation"
  done | LC_ALL=C sort -u
)
key=$( (echo "$layer"; echo "$relations") | sha256sum | cut -c1-16)
root=$roots/$key

mkdir -p "$roots"
exec 8>"$roots.lock"
flock 8  # one builder at a time; others wait and then reuse it
if [[ ! -d "$root" ]]; then
  build=$root.partial
  log=$roots/$key.log
  rm -rf "$build"
  trap 'mountpoint -q "$build/proc" && umount "$build/proc"; rm -rf "$build"' EXIT
  mkdir -p "$build"
  tar -C "$build" -xf "$layer"
  chmod 0755 "$build"  # the tarball stores ./ as mktemp's 0700
  cp /etc/resolv.conf "$build/etc/resolv.conf"
  mount -t proc proc "$build/proc"
  satisfy() {
    DEBIAN_FRONTEND=noninteractive chroot "$build" apt-get satisfy -y -q --no-install-recommends \
      "$(paste -sd, <<<"$relations" | sed 's/,/, /g')" >>"$log" 2>&1
  }
  if ! satisfy; then
    chroot "$build" apt-get update -q >>"$log" 2>&1 || cant "Debian's archive unreachable (apt-get update failed): $(tail -1 "$log")"
    satisfy || { tail -20 "$log" >&2; echo "deps_root: apt cannot satisfy the packages' dependencies" >&2; exit 1; }
  fi
  umount "$build/proc"
  chroot "$build" apt-get clean
  # The tests' installs go to a throwaway root: dpkg need not fsync each file.
  echo force-unsafe-io >"$build/etc/dpkg/dpkg.cfg.d/ftb-test-unsafe-io"
  mv "$build" "$root"
  trap - EXIT
fi
touch "$root.used"
# Roots of other dependency sets (other trees, older packaging) unused for a day.
find "$roots" -maxdepth 1 -name '*.used' -mmin +1440 | while read -r stale; do
  rm -rf "${stale%.used}" "$stale" "${stale%.used}.log"
done
echo "$root"
