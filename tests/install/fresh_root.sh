#!/usr/bin/env bash
# Makes a fresh Debian 12 root (debootstrap --variant=minbase from Debian's
# archive, package lists fetched) in directory $1, for installing the ftb .deb
# as on a new machine. The first run caches the root as a tarball under
# /var/cache/ftb-test (a few minutes); later runs unpack it (seconds).
# Needs root, debootstrap (deploy/install-deps.sh) and the archive reachable.
# $1 = --cache-only: only make sure the tarball exists (tests/warm_caches.sh).
set -euo pipefail
target=$1
cache_dir=/var/cache/ftb-test
tarball=$cache_dir/bookworm-minbase.tar
mirror=http://deb.debian.org/debian

mkdir -p "$cache_dir"
exec 9>"$cache_dir/lock"
flock 9  # one builder at a time; others wait and then reuse it
if [[ ! -s "$tarball" ]]; then
  command -v debootstrap >/dev/null || { echo "fresh_root: debootstrap missing: run deploy/install-deps.sh" >&2; exit 1; }
  build=$(mktemp -d "$cache_dir/build-XXXXXX")
  trap 'rm -rf "$build"' EXIT
  echo "fresh_root: debootstrap bookworm (minbase) into the cache, once" >&2
  debootstrap --variant=minbase bookworm "$build" "$mirror" >"$cache_dir/debootstrap.log" 2>&1 ||
    { tail -20 "$cache_dir/debootstrap.log" >&2; exit 1; }
  cp /etc/resolv.conf "$build/etc/resolv.conf"
  chroot "$build" apt-get update -q >>"$cache_dir/debootstrap.log" 2>&1
  chroot "$build" apt-get clean
  tar -C "$build" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
fi
flock -u 9
[[ "$target" != --cache-only ]] || exit 0
mkdir -p "$target"
tar -C "$target" -xf "$tarball"
chmod 0755 "$target"  # a root directory, whatever mktemp gave the build directory
cp /etc/resolv.conf "$target/etc/resolv.conf"
