#!/usr/bin/env bash
# Builds the Debian package ftb_<version>_amd64.deb with dpkg-deb from what
# deploy/install.sh installs under /usr (configuration in /etc/ftb as conffiles,
# units in /usr/lib/systemd/system). Depends: the Debian runtime libraries the
# binaries link, computed by dpkg-shlibdeps. The maintainer scripts create the
# system user ftb and, when systemd runs, enable and start the units.
#
#   deploy/package-deb.sh [--from DIR] [--out DIR]
#
# --from  a tree holding the built files at their workspace paths (default: build with Bazel)
# --out   where to write the .deb (default: the current directory)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

from=()
out=$PWD
while (($#)); do
  case "$1" in
    --from) from=(--from "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "package-deb: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done

work=$(mktemp -d /tmp/ftb-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
bash "$here/install.sh" "${from[@]}" --prefix /usr --sysconfdir /etc --destdir "$stage" >/dev/null
# Packages keep the shipped configuration as conffiles; no *.example copies.
rm -f "$stage"/etc/ftb/*.example
version=$("$stage/usr/bin/ftb-agent" --version | awk '{print $2}')

# dpkg-shlibdeps wants a debian/control to read; it prints shlibs:Depends=...
mkdir -p "$work/src/debian"
printf 'Source: ftb\n\nPackage: ftb\nArchitecture: amd64\n' >"$work/src/debian/control"
elves=()
for f in "$stage"/usr/bin/* "$stage"/usr/lib/*.so; do elves+=("-e$f"); done
depends=$(cd "$work/src" && dpkg-shlibdeps -O "${elves[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n "$depends" ]] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: ftb
Version: $version
Architecture: amd64
Maintainer: ftb developers <ftb@localhost>
Section: net
Priority: optional
Depends: $depends, passwd
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Description: fault tolerance backplane for HPC clusters
 ftb-agent routes namespaced, severity-tagged fault events between the
 layers of an HPC system (hardware monitors, MPI, checkpointing, job
 launchers) and forms a self-healing tree of agents across nodes. Includes
 ftbctl, the ftb-ipmi and ftb-ib monitors, the FTB 0.5 C library (libftb)
 and the C++ SDK, with systemd units.
CONTROL
find "$stage/etc" -type f | sed "s|^$stage||" | sort >"$stage/DEBIAN/conffiles"

cat >"$stage/DEBIAN/postinst" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  # The agent and ftb-ib run as this unprivileged system user (see their units).
  getent group ftb >/dev/null || groupadd --system ftb
  getent passwd ftb >/dev/null ||
    useradd --system --gid ftb --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ftb
  ldconfig
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable ftb-agent.service ftb-ipmi.service ftb-ib.service
    systemctl restart ftb-agent.service
    systemctl restart ftb-ipmi.service ftb-ib.service || true  # a node without BMC/HCA steps aside
  fi
fi
SCRIPT
cat >"$stage/DEBIAN/prerm" <<'SCRIPT'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
  systemctl disable --now ftb-ib.service ftb-ipmi.service ftb-agent.service || true
fi
SCRIPT
cat >"$stage/DEBIAN/postrm" <<'SCRIPT'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
  ldconfig
  if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
fi
SCRIPT
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"

mkdir -p "$out"
deb="$out/ftb_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zgzip --build "$stage" "$deb" >/dev/null
echo "$deb"
