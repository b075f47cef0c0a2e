#!/usr/bin/env bash
# Installs ftb under a prefix: the daemons (ftb-agent, ftb-ipmi, ftb-ib when
# built), ftbctl and ftb-run, the FTB 0.5 C library (libftb.so.0 and libftb.a),
# the checkpoint runtime for MPI programs (libftbckpt.so.0) and the C++ SDK
# (static) with their headers and pkg-config files (ftb, ftbckpt, ftb-cpp), the
# systemd units, example configuration, man pages (help2man from each program's
# --help and deploy/man/<program>.h2m) and documentation under share/doc/ftb at
# the paths README, configuration files and error messages name (docs/SECURITY.md ...).
#
#   deploy/install.sh [--prefix DIR] [--sysconfdir DIR] [--libdir DIR] [--destdir DIR] [--from DIR]
#
# --prefix      where ftb will live (default /usr/local); written into units and .pc files
# --sysconfdir  configuration directory (default /etc for --prefix /usr, else PREFIX/etc)
# --libdir      libraries and pkg-config files (default PREFIX/lib; Debian: /usr/lib/<triplet>)
# --destdir     stage everything under this directory instead of / (packaging; also $DESTDIR)
# --from        a tree holding the built files at their workspace paths (default:
#               build them with Bazel and use bazel-bin). Tests pass their runfiles.
# Existing configuration files are kept; the shipped ones also go in as *.example.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
sysconfdir=""
libdir=""
destdir="${DESTDIR:-}"
from=""
while (($#)); do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --sysconfdir) sysconfdir=$2; shift 2 ;;
    --libdir) libdir=$2; shift 2 ;;
    --destdir) destdir=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "install: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
if [[ -z "$sysconfdir" ]]; then
  if [[ "$prefix" == /usr ]]; then sysconfdir=/etc; else sysconfdir="$prefix/etc"; fi
fi
libdir=${libdir:-$prefix/lib}
command -v help2man >/dev/null || { echo "install: help2man missing (man pages): run deploy/install-deps.sh" >&2; exit 1; }

built() { echo "${from}/$1"; }  # a built file
source_file() { if [[ -e "${from}/$1" ]]; then echo "${from}/$1"; else echo "$1"; fi; }

if [[ -z "$from" ]]; then
  deploy/install-deps.sh
  bazel build -c opt //agent:ftb-agent //cli:ftbctl //components/ipmi:ftb-ipmi //components/ib:ftb-ib \
    //components/launcher_bridge:ftb-run //components/mpi_bridge:libftbckpt.so.0 \
    //client/ftb05:libftb.so.0 //client/ftb05:libftb_a //client:libftb_cpp_a
  from=$(bazel info -c opt bazel-bin)
fi

version=$(sed -n 's/.*kVersion = "\([^"]*\)".*/\1/p' "$(source_file client/wire/codec.h)")
root="${destdir}${prefix}"
lib="${destdir}${libdir}"
etc="${destdir}${sysconfdir}/ftb"
install -d "$root/bin" "$lib/pkgconfig" "$root/include/ftb/client" "$root/lib/systemd/system" \
  "$root/share/doc/ftb" "$root/share/man/man1" "$root/share/man/man8" "$etc"

# Binaries: the component daemons and ftb-run only when they were built.
install -m 0755 "$(built agent/ftb-agent)" "$(built cli/ftbctl)" "$root/bin/"
units=(ftb-agent)
programs=(ftb-agent ftbctl)
for program in components/ipmi/ftb-ipmi components/ib/ftb-ib components/launcher_bridge/ftb-run; do
  name=$(basename "$program")
  if [[ -x "$(built "$program")" ]]; then
    install -m 0755 "$(built "$program")" "$root/bin/"
    programs+=("$name")
    [[ "$name" == ftb-run ]] || units+=("$name")
  fi
done

# A shared library $1 (built, named after its SONAME) installed as $2 (SONAME
# plus minor numbers), with the SONAME link ldconfig would make and the
# development link -l finds.
install_shared() {
  local soname real=$2
  soname=$(basename "$1")
  install -m 0644 "$(built "$1")" "$lib/$real"
  ln -sfn "$real" "$lib/$soname"
  ln -sfn "$soname" "$lib/${soname%.so.*}.so"
}
# A pkg-config file from $1.in, for this prefix and libdir.
install_pc() {
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|^libdir=.*|libdir=$libdir|" \
    "$(source_file "$1.in")" > "$lib/pkgconfig/$(basename "$1")"
}

# The FTB 0.5 C API: libftb.so.0 (the SONAME of CIFTS FTB's libftb), file
# numbered after the API generation it implements.
install_shared client/ftb05/libftb.so.0 libftb.so.0.5.0
install -m 0644 "$(built client/ftb05/libftb.a)" "$lib/"
for h in libftb.h ftb_def.h ftb_client_lib_defs.h ftbx_last_will.h; do
  install -m 0644 "$(source_file "client/ftb05/$h")" "$root/include/"
done
install_pc client/ftb05/ftb.pc
# The checkpoint runtime for MPI programs (C API; ftbckpt.hpp is internal), when built.
if [[ -e "$(built components/mpi_bridge/libftbckpt.so.0)" ]]; then
  install_shared components/mpi_bridge/libftbckpt.so.0 "libftbckpt.so.0.${version#*.}"
  install -m 0644 "$(source_file components/mpi_bridge/ftbckpt.h)" "$root/include/"
  install_pc components/mpi_bridge/ftbckpt.pc
fi
# The C++ SDK: headers keep their "client/..." include paths under include/ftb.
install -m 0644 "$(built client/libftb-cpp.a)" "$lib/"
for h in client.h curve_keys.h event.h payload_fields.h status.h; do
  install -m 0644 "$(source_file "client/$h")" "$root/include/ftb/client/"
done
install_pc client/ftb-cpp.pc

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

# ftbctl's bash completion.
completion=$(source_file cli/ftbctl.bash-completion)
if [[ -e "$completion" ]]; then
  install -D -m 0644 "$completion" "$root/share/bash-completion/completions/ftbctl"
else
  echo "install: cli/ftbctl.bash-completion not in the tree; not installed" >&2
fi

# Man pages: OPTIONS from the installed program's own --help (never out of
# date), the rest from deploy/man/<program>.h2m (its section is on its first line).
for program in "${programs[@]}"; do
  h2m=$(source_file "deploy/man/$program.h2m")
  [[ -e "$h2m" ]] || { echo "install: no man page source deploy/man/$program.h2m" >&2; exit 1; }
  section=$(sed -n '1s/^# section \([18]\)$/\1/p' "$h2m")
  [[ -n "$section" ]] || { echo "install: $h2m: first line must be '# section 1' or '# section 8'" >&2; exit 1; }
  help2man --no-info --no-discard-stderr --section "$section" --include "$h2m" \
    --version-string "$version" --source "ftb $version" --manual "ftb manual" \
    --output "$root/share/man/man$section/$program.$section" "$root/bin/$program" ||
    { echo "install: help2man could not run $root/bin/$program --help" >&2; exit 1; }
done

# Documentation at its workspace paths, so that "docs/SECURITY.md" in a message
# or README's links resolve under share/doc/ftb. A doc not in the --from tree is named.
for doc in README.md docs/AGENT_SETTINGS.md docs/ARCHITECTURE.md docs/FILTERS.md docs/FTBCTL.md docs/FTB05.md docs/METRICS.md \
           docs/FTBCKPT.md docs/FTB_RUN.md docs/SECURITY.md docs/RECOVERY_EVENTS.md client/ftb05/API_NOTES.md components/ipmi/README.md \
           components/ib/README.md components/launcher_bridge/README.md components/mpi_bridge/README.md; do
  if [[ -e "$(source_file "$doc")" ]]; then
    install -D -m 0644 "$(source_file "$doc")" "$root/share/doc/ftb/$doc"
  else
    echo "install: $doc not in the tree; not installed" >&2
  fi
done
echo "ftb $version installed under ${destdir}${prefix} (configuration in ${destdir}${sysconfdir}/ftb)"
