#!/usr/bin/env bash
# Builds ftb's Debian packages with debhelper from what deploy/install.sh
# installs (deploy/debian/: control, rules, copyright, changelog, maintainer
# scripts; deploy/debian/README.md lists the packages). Binaries are stripped
# into -dbgsym packages (when they carry debug information); Depends come from
# dpkg-shlibdeps, for the -dev packages from the pkg-config modules their .pc
# files require, for the daemons from the programs their units run.
#
#   deploy/package-deb.sh [--from DIR] [--out DIR]
#
# --from  a tree holding the built files at their workspace paths (default: build with Bazel)
# --out   where to write the packages (default: the current directory): every
#         .deb (-dbgsym ones included) and the .changes/.buildinfo that list them.
# Prints the path of each .deb written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

from=""
out=$PWD
while (($#)); do
  case "$1" in
    --from) from=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "package-deb: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
for tool in dpkg-buildpackage dh help2man; do
  command -v "$tool" >/dev/null ||
    { echo "package-deb: $tool missing: run deploy/install-deps.sh (debhelper, help2man)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/ftb-deb-XXXXXX)
trap 'rm -rf "$work"' EXIT
if [[ -z "$from" ]]; then
  # Linked unstripped with full debug information: dh_strip moves it into the -dbgsym packages.
  (cd "$here/.." && bazel build -c opt --strip=never --copt=-g //agent:ftb-agent //cli:ftbctl //components/ipmi:ftb-ipmi \
    //components/ib:ftb-ib //components/launcher_bridge:ftb-run //components/mpi_bridge:libftbckpt.so.0 \
    //client/ftb05:libftb.so.0 //client/ftb05:libftb_a //client:libftb_cpp_a >&2)
  from=$(cd "$here/.." && bazel info -c opt --strip=never --copt=-g bazel-bin)  # install.sh takes sources from the workspace
fi
from=$(cd "$from" && pwd)

# The packages' version is the built ftb's: the changelog must agree.
src="$work/ftb"
mkdir -p "$src"
cp -r "$here/debian" "$src/debian"
codec_h="$from/client/wire/codec.h"
[[ -e "$codec_h" ]] || codec_h="$here/../client/wire/codec.h"
built_version=$(sed -n 's/.*kVersion = "\([^"]*\)".*/\1/p' "$codec_h")
deb_version=$(cd "$src" && dpkg-parsechangelog -S Version)
if [[ "${deb_version%-*}" != "$built_version" ]]; then
  echo "package-deb: deploy/debian/changelog is at $deb_version but the built ftb is $built_version:" \
       "add a changelog entry (dch -v $built_version-1)" >&2
  exit 1
fi

# A Bazel fastbuild links with -Wl,-S: nothing to put into -dbgsym packages then.
if [[ $(readelf -S "$from/agent/ftb-agent" | grep -c '\.debug_info') -eq 0 ]]; then
  echo "package-deb: $from/agent/ftb-agent carries no debug information (linked with -Wl,-S?): no -dbgsym packages" >&2
  export DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}"
fi

# -b: binary packages only; -us -uc: unsigned; dpkg-buildpackage checks Build-Depends.
if ! (cd "$src" && FTB_INSTALL="$here/install.sh" FTB_FROM="$from" \
      dpkg-buildpackage -b -us -uc --no-pre-clean >"$work/build.log" 2>&1); then
  tail -40 "$work/build.log" >&2
  echo "package-deb: dpkg-buildpackage failed (log above)" >&2
  exit 1
fi
mkdir -p "$out"
for f in "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo; do
  [[ -e "$f" ]] || continue
  cp "$f" "$out/"
  case "$f" in *.deb) echo "$out/$(basename "$f")" ;; esac
done
