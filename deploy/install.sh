#!/usr/bin/env bash
# Installs ftb under a prefix: the daemons (ftb-agent, ftb-ipmi, ftb-ib when
# built) and ftbctl, the FTB 0.5 C library (shared and static) and the C++ SDK
# (static) with their headers and pkg-config files (ftb, ftb-cpp), the systemd
# units, example configuration and documentation.
#
#   deploy/install.sh [--prefix DIR] [--sysconfdir DIR] [--destdir DIR] [--from DIR]
#
# --prefix      where ftb will live (default /usr/local); written into units and .pc files
# --sysconfdir  configuration directory (default /etc for --prefix /usr, else PREFIX/etc)
# --destdir     stage everything under this directory instead of / (packaging; also $DESTDIR)
# --from        a tree holding the built files at their workspace paths (default:
#               build them with Bazel and use bazel-bin). Tests pass their runfiles.
# Existing configuration files are kept; the shipped ones also go in as *.example.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
sysconfdir=""
destdir="${DESTDIR:-}"
from=""
while (($#)); do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --sysconfdir) sysconfdir=$2; shift 2 ;;
    --destdir) destdir=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "install: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
if [[ -z "$sysconfdir" ]]; then
  if [[ "$prefix" == /usr ]]; then sysconfdir=/etc; else sysconfdir="$prefix/etc"; fi
fi

built() { echo "${from}/$1"; }  # a built file
source_file() { if [[ -e "${from}/$1" ]]; then echo "${from}/$1"; else echo "$1"; fi; }

if [[ -z "$from" ]]; then
  deploy/install-deps.sh
  bazel build -c opt //agent:ftb-agent //cli:ftbctl //components/ipmi:ftb-ipmi //components/ib:ftb-ib \
    //client/ftb05:libftb.so //client/ftb05:libftb_a //client:libftb_cpp_a
  from=$(bazel info -c opt bazel-bin)
fi

version=$(sed -n 's/.*kVersion = "\([^"]*\)".*/\1/p' "$(source_file client/codec.h)")
root="${destdir}${prefix}"
etc="${destdir}${sysconfdir}/ftb"
install -d "$root/bin" "$root/lib/pkgconfig" "$root/include/ftb/client" "$root/lib/systemd/system" \
  "$root/share/doc/ftb/components/ipmi" "$etc"

# Binaries: the component daemons only when they were built.
install -m 0755 "$(built agent/ftb-agent)" "$(built cli/ftbctl)" "$root/bin/"
units=(ftb-agent)
for daemon in components/ipmi/ftb-ipmi components/ib/ftb-ib; do
  name=$(basename "$daemon")
  if [[ -x "$(built "$daemon")" ]]; then
    install -m 0755 "$(built "$daemon")" "$root/bin/"
    units+=("$name")
  fi
done

# The FTB 0.5 C API.
install -m 0755 "$(built client/ftb05/libftb.so)" "$root/lib/"
install -m 0644 "$(built client/ftb05/libftb.a)" "$root/lib/"
for h in libftb.h ftb_def.h ftb_client_lib_defs.h ftbx_last_will.h; do
  install -m 0644 "$(source_file "client/ftb05/$h")" "$root/include/"
done
# The C++ SDK: headers keep their "client/..." include paths under include/ftb.
install -m 0644 "$(built client/libftb-cpp.a)" "$root/lib/"
for h in client.h event.h payload_fields.h status.h; do
  install -m 0644 "$(source_file "client/$h")" "$root/include/ftb/client/"
done
for pc in client/ftb05/ftb client/ftb-cpp; do
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" \
    "$(source_file "$pc.pc.in")" > "$root/lib/pkgconfig/$(basename "$pc").pc"
done

# Units name their binaries and configuration at the Debian paths; rewrite for this layout.
for unit in "${units[@]}"; do
  src=$(source_file "deploy/$unit.service")
  [[ -e "$src" ]] || { echo "install: no unit deploy/$unit.service; skipped" >&2; continue; }
  sed -e "s|/usr/bin/|$prefix/bin/|g" -e "s|/etc/ftb/|$sysconfdir/ftb/|g" \
    -e "s|/usr/share/doc/|$prefix/share/doc/|g" "$src" > "$root/lib/systemd/system/$unit.service"
  chmod 0644 "$root/lib/systemd/system/$unit.service"
  conf=$(source_file "deploy/$unit.conf")
  if [[ -e "$conf" ]]; then
    install -m 0644 "$conf" "$etc/$unit.conf.example"
    [[ -e "$etc/$unit.conf" ]] || install -m 0644 "$conf" "$etc/$unit.conf"
  fi
done

for doc in README.md docs/ARCHITECTURE.md docs/FILTERS.md docs/FTBCTL.md docs/FTB05.md; do
  [[ -e "$(source_file "$doc")" ]] && install -m 0644 "$(source_file "$doc")" "$root/share/doc/ftb/"
done
[[ -e "$(source_file components/ipmi/README.md)" ]] && \
  install -m 0644 "$(source_file components/ipmi/README.md)" "$root/share/doc/ftb/components/ipmi/"
echo "ftb $version installed under ${destdir}${prefix} (configuration in ${destdir}${sysconfdir}/ftb)"
