#!/usr/bin/env bash
# Unpacks a Debian trixie root with Open MPI 5 (ULFM) and what ftbckpt builds
# with into directory $1. The first run makes it (debootstrap --variant=minbase
# trixie from the archive the host's apt sources use, then apt-get inside it,
# a few minutes) and caches it as /var/cache/ftb-test/$TAG.tar.gz; later runs
# unpack it (seconds). The host's apt sources are never touched.
# Exit 0: root ready. Exit 3: it cannot be made on this machine; one line
# "SKIPPED: <why>" on stdout. Anything else: a real failure.
set -euo pipefail
target=$1
# The version tag: change it whenever PACKAGES or the recipe change.
tag=trixie-ulfm-v1
PACKAGES="openmpi-bin libopenmpi-dev g++ libzmq3-dev cppzmq-dev libprotobuf-dev protobuf-compiler libisal-dev"
cache_dir=/var/cache/ftb-test
tarball=$cache_dir/$tag.tar.gz
log=$cache_dir/$tag.log

skip() { echo "SKIPPED: $*"; exit 3; }

# The archive the host uses (deb822 or one-line sources); never its suites.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -1)
if [[ -z "$mirror" ]]; then
  mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

mkdir -p "$cache_dir"
exec 9>"$cache_dir/$tag.lock"
flock 9  # one builder at a time; others wait and then reuse it
if [[ ! -s "$tarball" ]]; then
  [[ $(id -u) -eq 0 ]] || skip "building the trixie root needs root"
  command -v debootstrap >/dev/null || skip "debootstrap missing (deploy/install-deps.sh installs it)"
  [[ -e /usr/share/debootstrap/scripts/trixie ]] || skip "this debootstrap knows no trixie"
  build=$(mktemp -d "$cache_dir/build-$tag-XXXXXX")
  trap 'rm -rf "$build"' EXIT
  echo "trixie_root: debootstrap trixie (minbase) from $mirror into the cache, once" >&2
  if ! debootstrap --variant=minbase trixie "$build" "$mirror" >"$log" 2>&1; then
    if grep -qiE "Failed getting release file|Temporary failure resolving|Could not resolve|Connection refused|Network is unreachable" "$log"; then
      skip "the archive $mirror is unreachable (see $log)"
    fi
    tail -20 "$log" >&2
    exit 1
  fi
  cp /etc/resolv.conf "$build/etc/resolv.conf"
  # shellcheck disable=SC2086 # PACKAGES are words
  chroot "$build" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $PACKAGES && apt-get clean" \
    >>"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  chroot "$build" dpkg-query -W -f '${Package} ${Version}\n' $PACKAGES >"$cache_dir/$tag.versions"
  rm -rf "$build"/var/lib/apt/lists/*
  tar -C "$build" -cf - . | gzip -1 >"$tarball.tmp"
  mv "$tarball.tmp" "$tarball"
  rm -rf "$build"
  trap - EXIT
fi
flock -u 9
mkdir -p "$target"
tar -C "$target" -xzf "$tarball"
chmod 0755 "$target"
