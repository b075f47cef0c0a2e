#!/usr/bin/env bash
# deploy/install.sh puts a usable ftb under a prefix: a program written for
# CIFTS FTB 0.6.2 compiles with the installed headers, links through the
# installed pkg-config file against libftb.so and against libftb.a, and
# exchanges an event through the installed ftb-agent; so does a C++ program
# built against the installed SDK (pkg-config ftb-cpp), and an MPI program
# builds against the installed libftbckpt (mpicc, pkg-config ftbckpt). Shared
# libraries carry versioned SONAMEs; units, configuration, man pages and the
# documentation land where the units and configuration files say.
set -euo pipefail
root="${TEST_SRCDIR}/ftb"
work=$(mktemp -d /tmp/ftb-install-XXXXXX)
agent_pid=""
cleanup() {
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix="$work/prefix"
bash "$root/deploy/install.sh" --from "$root" --prefix "$prefix"
for f in bin/ftb-agent bin/ftbctl bin/ftb-ipmi bin/ftb-ib bin/ftb-run lib/libftb.so lib/libftb.so.0 lib/libftb.a \
         include/libftb.h include/ftb_def.h include/ftb_client_lib_defs.h lib/pkgconfig/ftb.pc \
         etc/ftb/ftb-agent.conf.example etc/ftb/ftb-agent.conf lib/libftb-cpp.a include/ftb/client/client.h \
         lib/pkgconfig/ftb-cpp.pc lib/libftbckpt.so lib/libftbckpt.so.0 include/ftbckpt.h lib/pkgconfig/ftbckpt.pc \
         lib/systemd/system/ftb-agent.service lib/systemd/system/ftb-ipmi.service \
         lib/systemd/system/ftb-ib.service share/man/man8/ftb-agent.8 share/man/man1/ftbctl.1 \
         share/man/man8/ftb-ipmi.8 share/man/man8/ftb-ib.8 share/man/man1/ftb-run.1 \
         share/doc/ftb/README.md share/doc/ftb/docs/SECURITY.md share/doc/ftb/docs/METRICS.md \
         share/doc/ftb/components/ipmi/README.md share/bash-completion/completions/ftbctl \
         include/ftb/client/curve_keys.h; do
  [[ -e "$prefix/$f" ]] || fail "install did not create $f"
done
for lib in libftb.so.0 libftbckpt.so.0; do
  [[ $(readelf -d "$prefix/lib/$lib" | grep -c "Library soname: \[$lib\]") -eq 1 ]] || fail "$lib lacks SONAME $lib"
done
# Each man page has the OPTIONS its program's --help gave.
grep -qF '\fB\-\-config\fR' "$prefix/share/man/man8/ftb-agent.8" || fail "ftb-agent.8 does not document --config"
# What the configuration files point to is installed at that path under share/doc/ftb.
for ref in $(grep -ho '\(docs\|components/[a-z_]*\)/[A-Za-z_]*\.md' "$prefix"/etc/ftb/*.conf | sort -u); do
  [[ -s "$prefix/share/doc/ftb/$ref" ]] || fail "the configuration names $ref, not installed under share/doc/ftb"
done

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --exists ftb || fail "pkg-config does not find ftb"
[[ "$(pkg-config --modversion ftb)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "ftb.pc has version '$(pkg-config --modversion ftb)'"
src="$root/tests/install/classic_program.c"
# Under `bazel test --config=asan` the installed libraries are instrumented.
sanitize=""
if [[ $(nm -A "$prefix/lib/libftb.a" 2>/dev/null | grep -c __asan_) -gt 0 ]]; then sanitize="-fsanitize=address,undefined"; fi
# shellcheck disable=SC2046
# shellcheck disable=SC2086
gcc -std=c99 -Wall -Werror $sanitize -o "$work/classic_shared" "$src" $(pkg-config --cflags --libs ftb)
static_libs=$(pkg-config --static --libs-only-l ftb | sed 's/-lftb//')
# shellcheck disable=SC2046,SC2086
gcc -std=c99 -Wall -Werror $sanitize -o "$work/classic_static" "$src" $(pkg-config --cflags ftb) \
  "$prefix/lib/libftb.a" $static_libs
# The C++ SDK, the same way.
[[ "$(pkg-config --modversion ftb-cpp)" == "$(pkg-config --modversion ftb)" ]] || fail "ftb-cpp.pc version differs"
# shellcheck disable=SC2046
g++ -std=c++20 -Wall -Werror $sanitize -o "$work/sdk_program" "$root/tests/install/sdk_program.cc" \
  $(pkg-config --cflags --libs ftb-cpp)
# An MPI program against libftbckpt, as HPC sites build: mpicc and <mpi.h>.
# shellcheck disable=SC2046,SC2086
mpicc -Wall -Werror $sanitize -o "$work/ckpt_program" "$root/tests/install/ckpt_program.c" \
  $(pkg-config --cflags --libs ftbckpt) || fail "an MPI program does not build against the installed libftbckpt"
[[ $(readelf -d "$work/ckpt_program" | grep -c 'Shared library: \[libftbckpt.so.0\]') -eq 1 ]] ||
  fail "the MPI program does not link libftbckpt.so.0"
# Units name the installed binaries and configuration.
grep -q "^ExecStart=$prefix/bin/ftb-agent --config $prefix/etc/ftb/ftb-agent.conf\$" \
  "$prefix/lib/systemd/system/ftb-agent.service" || fail "ftb-agent.service does not point into $prefix"
# grep -c reads everything: with pipefail, an early-exiting grep -q would fail the pipe.
[[ $(ldd "$work/classic_static" | grep -c libftb) -eq 0 ]] || fail "classic_static still needs libftb.so"

"$prefix/bin/ftb-agent" --ipc-endpoint "ipc://$work/agent.sock" --tcp-endpoint none \
  --ready-file "$work/ready" --log-level warn &
agent_pid=$!
for _ in $(seq 1 3000); do [[ -e "$work/ready" ]] && break; sleep 0.01; done  # 30 s at least
[[ -e "$work/ready" ]] || fail "the installed ftb-agent did not become ready"

export FTB_AGENT_ENDPOINT="ipc://$work/agent.sock"
out=$(LD_LIBRARY_PATH="$prefix/lib" "$work/classic_shared") || fail "shared build exited $?"
[[ "$out" == "received hello from 0.6.2 code" ]] || fail "shared build printed '$out'"
out=$("$work/classic_static") || fail "static build exited $?"
[[ "$out" == "received hello from 0.6.2 code" ]] || fail "static build printed '$out'"
out=$("$work/sdk_program") || fail "the C++ SDK program exited $?"
[[ "$out" == "received hello from the installed SDK" ]] || fail "the C++ SDK program printed '$out'"
[[ $("$prefix/bin/ftbctl" --agent "$FTB_AGENT_ENDPOINT" history --json | grep -c CLASSIC_EVENT) -gt 0 ]] \
  || fail "the installed ftbctl does not see the event in the agent's history"
echo "install test passed"
