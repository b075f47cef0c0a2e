#!/usr/bin/env bash
# Makes a Debian trixie root with Open MPI 5 (ULFM) and the -dev packages that
# ftbckpt compiles against, at directory $1, and prints the cached root's
# name. The first run builds it (debootstrap --variant=minbase from the
# archive the host's apt sources use, then apt-get install inside it: a few
# minutes) and keeps it, unpacked, under /var/cache/ftb-test named after the
# tag below and a hash of the versions of the packages it holds (a pointer
# file names the current one). Every run mounts it at $1 as the read-only
# lower layer of an overlay whose upper layer is $1.overlay (nothing to
# unpack, and the cached root is never written to): the caller unmounts $1
# (umount) before it removes $1 and $1.overlay.
# trixie's suites are used only inside the root: never in the host's apt sources.
# Exit 0: the root is at $1. Exit 3: this machine cannot build it (not root,
# no debootstrap, archive unreachable): the last line of stderr says why.
# $1 = --cache-only: only make sure the cached root exists (tests/warm_caches.sh).
set -euo pipefail
target=$1
cache_dir=/var/cache/ftb-test
# Bump the tag when the package list or the recipe changes: a new root is built.
tag=trixie-ompi5-v2
packages=(g++ openmpi-bin libopenmpi-dev libzmq3-dev cppzmq-dev libprotobuf-dev protobuf-compiler libisal-dev)
pointer=$cache_dir/$tag.current

cant() { echo "trixie_root: $*" >&2; exit 3; }

# The Debian archive of the host's apt sources (deb822 or one-line form).
host_mirror() {
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' |
    grep -E '/debian/?$' | head -1 || true)
  [[ -n "$uri" ]] || uri=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '{for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; break}}' | grep -E '/debian/?$' | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

[[ $(id -u) -eq 0 ]] || cant "making the trixie root needs root"
mkdir -p "$cache_dir"
exec 9>"$cache_dir/$tag.lock"
flock 9  # one builder at a time; others wait and then reuse it
cached=""
if [[ -s "$pointer" ]]; then cached=$cache_dir/$(cat "$pointer"); fi
if [[ -z "$cached" || ! -x "$cached/usr/bin/mpirun" ]]; then
  command -v debootstrap >/dev/null || cant "debootstrap missing: run deploy/install-deps.sh"
  [[ -e /usr/share/debootstrap/scripts/trixie ]] || cant "this debootstrap does not know trixie"
  mirror=$(host_mirror)
  log=$cache_dir/$tag.log
  build=$(mktemp -d "$cache_dir/build-$tag-XXXXXX")
  trap 'mountpoint -q "$build/proc" && umount "$build/proc"; rm -rf "$build"' EXIT
  echo "trixie_root: debootstrap trixie (minbase) from $mirror into the cache, once" >&2
  debootstrap --variant=minbase trixie "$build" "$mirror" >"$log" 2>&1 ||
    cant "debootstrap trixie from $mirror failed (archive unreachable?): $(tail -1 "$log")"
  cp /etc/resolv.conf "$build/etc/resolv.conf"
  mount -t proc proc "$build/proc"
  chroot "$build" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${packages[@]}" >>"$log" 2>&1 ||
    cant "apt-get install in the trixie root failed: $(tail -1 "$log")"
  umount "$build/proc"
  chroot "$build" apt-get clean
  # The name says what is inside: the versions of every package asked for.
  chroot "$build" dpkg-query -W -f='${Package}=${Version}\n' "${packages[@]}" | LC_ALL=C sort >"$build/versions"
  key=$(sha256sum <"$build/versions" | cut -c1-12)
  mv "$build/versions" "$cache_dir/$tag-$key.versions"
  name=$tag-$key
  chmod 0755 "$build"  # mktemp's 0700 would keep every unprivileged user out
  rm -rf "${cache_dir:?}/$name"
  mv "$build" "$cache_dir/$name"
  # Older roots of this tag and of earlier tags (tarballs, v1); not this tag's lock, log or pointer.
  find "$cache_dir" -maxdepth 1 -name 'trixie-ompi5-*' ! -name "$tag.*" ! -name "$name" ! -name "$name.*" \
    -exec rm -rf {} +
  echo "$name" >"$pointer.tmp"
  mv "$pointer.tmp" "$pointer"
  cached=$cache_dir/$name
fi
flock -u 9
if [[ "$target" == --cache-only ]]; then
  basename "$cached"
  exit 0
fi
mkdir -p "$target" "$target.overlay/upper" "$target.overlay/work"
if ! mount -t overlay overlay \
  -o "lowerdir=$cached,upperdir=$target.overlay/upper,workdir=$target.overlay/work" "$target"; then
  echo "trixie_root: no overlay mount here: copying the root instead (slower)" >&2
  cp -a "$cached/." "$target/"
fi
chmod 0755 "$target"
basename "$cached"
