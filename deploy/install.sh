#!/usr/bin/env bash
# Installs ftb under a prefix: binaries, the FTB 0.5 C library (shared and
# static) with its headers and pkg-config file, and the example configuration.
#
#   deploy/install.sh [--prefix DIR] [--from DIR]
#
# --prefix  where to install (default /usr/local)
# --from    a tree holding the built files at their workspace paths (default:
#           build them with Bazel and use bazel-bin). Tests pass their runfiles.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
from=""
while (($#)); do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done

built() { echo "${from}/$1"; }  # a built file
source_file() { if [[ -e "${from}/$1" ]]; then echo "${from}/$1"; else echo "$1"; fi; }

if [[ -z "$from" ]]; then
  deploy/install-deps.sh
  bazel build -c opt //agent:ftb-agent //cli:ftbctl //client/ftb05:libftb.so //client/ftb05:libftb_a
  from=$(bazel info -c opt bazel-bin)
fi

version=$(sed -n 's/.*kVersion = "\([^"]*\)".*/\1/p' "$(source_file client/codec.h)")
install -d "$prefix/bin" "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/etc/ftb"
install -m 0755 "$(built agent/ftb-agent)" "$(built cli/ftbctl)" "$prefix/bin/"
install -m 0755 "$(built client/ftb05/libftb.so)" "$prefix/lib/"
install -m 0644 "$(built client/ftb05/libftb.a)" "$prefix/lib/"
for h in libftb.h ftb_def.h ftb_client_lib_defs.h; do
  install -m 0644 "$(source_file "client/ftb05/$h")" "$prefix/include/"
done
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" \
  "$(source_file client/ftb05/ftb.pc.in)" > "$prefix/lib/pkgconfig/ftb.pc"
install -m 0644 "$(source_file deploy/ftb-agent.conf)" "$prefix/etc/ftb/ftb-agent.conf.example"
echo "ftb $version installed under $prefix"
