#!/usr/bin/env bash
# ftb's Debian packages on a fresh machine: deploy/package-deb.sh builds them;
# apt installs all of them (pulling their Depends from Debian's archive) into a
# fresh Debian 12 root made by debootstrap (tests/install/fresh_root.sh, cached
# under /var/cache/ftb-test); then every program and library is used from them
# in that root: ftb-agent runs as user ftb (created by the postinst) as its unit
# would, ftbctl publishes through it and reads its status and history, ftb-ipmi,
# ftb-ib and ftb-run answer --help/--version, a C program (libftb-dev), a C++
# program (libftb-cpp-dev) and an MPI program (libftbckpt-dev) build with
# pkg-config as users would and run, and the documentation the units and
# configuration files point to is there. Needs root (chroot, mount) and Debian's archive.
set -euo pipefail
# Bazel's test PATH lacks the sbin directories that chroot, dpkg and its maintainer scripts need.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
root="${TEST_SRCDIR}/ftb"
work=$(mktemp -d /tmp/ftb-deb-test-XXXXXX)
chmod 0755 "$work"  # user ftb must reach the root below it
fresh="$work/root"
# Downloaded .debs are kept between runs (the root itself is fresh every time).
apt_cache=/var/cache/ftb-test/apt-archives
agent_pid=""
mounts=()
cleanup() {
  if [[ -n "$agent_pid" ]]; then kill "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; fi
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    mountpoint -q "${mounts[i]}" && umount "${mounts[i]}"
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "needs root (chroot): run the suite as root, as CI does"
in_root() { chroot "$fresh" "$@"; }

# The packages, and the Depends that make them work on a machine without ftb's build tools.
mkdir -p "$work/out"
bash "$root/deploy/package-deb.sh" --from "$root" --out "$work/out" >"$work/debs"
mapfile -t debs < <(grep -v -- '-dbgsym_' "$work/debs")
deb() { local d; for d in "${debs[@]}"; do [[ "$(basename "$d")" == "$1"_* ]] && { echo "$d"; return; }; done; fail "no package $1 built"; }
depends() { dpkg-deb -f "$(deb "$1")" Depends; }
for want in "ftb-agent:libzmq5 libprotobuf32 libsystemd0 libstdc++6 adduser" "libftb0:libzmq5" \
            "libftb-dev:libftb0 libzmq3-dev libprotobuf-dev" "libftb-cpp-dev:libzmq3-dev libprotobuf-dev" \
            "libftbckpt0:libopenmpi3" "libftbckpt-dev:libftbckpt0 libopenmpi-dev" "ftb-ipmi:ftb-agent libfreeipmi17"; do
  pkg=${want%%:*}
  for lib in ${want#*:}; do
    [[ "$(depends "$pkg")" == *"$lib"* ]] || fail "$pkg's Depends lack $lib: $(depends "$pkg")"
  done
done
[[ $(dpkg-deb -c "$(deb ftb-agent)" | grep -c ' ./lib/systemd/system/ftb-agent.service$') -eq 1 ]] ||
  fail "no unit in ftb-agent"

bash "$root/tests/install/fresh_root.sh" "$fresh"
in_root dpkg-query -W ftb-agent >/dev/null 2>&1 && fail "the fresh root already has ftb-agent"
mount -t proc proc "$fresh/proc" && mounts+=("$fresh/proc")
mount -t sysfs sysfs "$fresh/sys" && mounts+=("$fresh/sys")        # Open MPI's hwloc reads the topology
mount -t tmpfs tmpfs "$fresh/dev/shm" && mounts+=("$fresh/dev/shm")  # ftbckpt's L1 copies, Open MPI's shared memory
mkdir -p "$apt_cache/partial"
mount --bind "$apt_cache" "$fresh/var/cache/apt/archives" && mounts+=("$fresh/var/cache/apt/archives")
mkdir -p "$fresh/tmp/debs"
cp "${debs[@]}" "$fresh/tmp/debs/"
export DEBIAN_FRONTEND=noninteractive
# Every ftb package, and what a user brings to build against the -dev ones:
# compilers, pkg-config and Open MPI's launcher.
install=(apt-get install -y -q --no-install-recommends /tmp/debs/*.deb gcc g++ pkgconf openmpi-bin)
# The archive cache is shared with this test of other trees (a second checkout,
# tests/stress.sh's): apt holds its lock for the whole install, so take turns.
exec 7>"$apt_cache.lock"
flock 7
# Package lists in the cached root may have aged past a point release: refresh once on failure.
if ! in_root sh -c "${install[*]}" >"$work/apt.log" 2>&1; then
  in_root apt-get update -q >>"$work/apt.log" 2>&1 ||
    { tail -30 "$work/apt.log" >&2; fail "apt-get update in the fresh root failed"; }
  in_root sh -c "${install[*]}" >>"$work/apt.log" 2>&1 ||
    { tail -30 "$work/apt.log" >&2; fail "apt could not install the packages"; }
fi
flock -u 7
for d in "${debs[@]}"; do
  pkg=$(dpkg-deb -f "$d" Package)
  in_root dpkg-query -W -f='${Status}' "$pkg" | grep -q "install ok installed" || fail "$pkg not installed"
done
in_root getent passwd ftb >/dev/null || fail "ftb-agent's postinst did not create user ftb"

# Programs: each answers from the packages (libraries found, man page installed).
in_root /usr/bin/ftb-ipmi --help >/dev/null || fail "ftb-ipmi --help failed"
[[ "$(in_root /usr/bin/ftb-ipmi --version)" == "ftb-ipmi "* ]] || fail "ftb-ipmi --version"
[[ "$(in_root /usr/bin/ftb-ib --version)" == "ftb-ib "* ]] || fail "ftb-ib --version"
[[ "$(in_root /usr/bin/ftb-agent --version)" == "ftb-agent "* ]] || fail "ftb-agent --version"
in_root /usr/bin/ftb-run --help | grep -q -- --spares || fail "ftb-run --help does not describe --spares"
in_root /usr/bin/ftbctl --help >/dev/null || fail "ftbctl --help failed"
[[ "$(in_root /usr/bin/ftbctl --version)" == "ftbctl "* ]] || fail "ftbctl --version"
[[ -s "$fresh/usr/share/bash-completion/completions/ftbctl" ]] || fail "ftb-tools lacks ftbctl's bash completion"
for page in man8/ftb-agent.8 man1/ftbctl.1 man8/ftb-ipmi.8 man8/ftb-ib.8 man1/ftb-run.1; do
  [[ -s "$fresh/usr/share/man/$page.gz" ]] || fail "no man page /usr/share/man/$page.gz"
  zcat "$fresh/usr/share/man/$page.gz" | grep -q '^\.SH OPTIONS' || fail "$page has no OPTIONS section"
done
# The documentation the units and configuration files point to.
for ref in $(grep -ho 'file:/usr/share/doc/[^ ]*' "$fresh"/lib/systemd/system/ftb-*.service | sed 's/^file://'); do
  [[ -s "$fresh$ref" ]] || fail "a unit's Documentation= names $ref, which is not installed"
done
for ref in $(grep -ho '\(docs\|components/[a-z_]*\)/[A-Za-z_]*\.md' "$fresh"/etc/ftb/*.conf | sort -u); do
  [[ -s "$fresh/usr/share/doc/ftb/$ref" ]] || fail "/etc/ftb names $ref, not installed under /usr/share/doc/ftb"
done

# What the unit does: /run/ftb owned by ftb, the agent as ftb with the shipped configuration.
install -d -o "$(in_root id -u ftb)" -g "$(in_root id -g ftb)" "$fresh/run/ftb"
chroot --userspec=ftb:ftb "$fresh" /usr/bin/ftb-agent --config /etc/ftb/ftb-agent.conf \
  --tcp-endpoint none --ready-file /run/ftb/ready --log-level warn &
agent_pid=$!
for _ in $(seq 1 3000); do [[ -e "$fresh/run/ftb/ready" ]] && break; sleep 0.01; done  # 30 s at least
[[ -e "$fresh/run/ftb/ready" ]] || fail "the packaged ftb-agent did not become ready"
[[ ! -e "$fresh/run/ftb/agent.sock" ]] || fail "the packaged agent listens on ZeroMQ IPC, off by default"
[[ "$(stat -c %u "$fresh/run/ftb/agent.stream")" == "$(in_root id -u ftb)" ]] || fail "agent.stream not owned by ftb"
in_root /usr/bin/ftbctl status >"$work/status" || fail "ftbctl status through the packaged agent failed"
in_root /usr/bin/ftbctl publish --space FTB.TEST.DEB --name DEB_INSTALLED --severity info \
  --payload 'from the package' || fail "ftbctl publish through the packaged agent failed"
[[ $(in_root /usr/bin/ftbctl history --json | grep -c DEB_INSTALLED) -gt 0 ]] ||
  fail "the packaged agent's history lacks the event"

# Programs built against the -dev packages, the way their users build them.
cp "$root/tests/install/classic_program.c" "$root/tests/install/sdk_program.cc" \
  "$root/tests/install/ckpt_program.c" "$fresh/tmp/"
in_root sh -c 'gcc -std=c99 -Wall -Werror -o /tmp/classic /tmp/classic_program.c $(pkg-config --cflags --libs ftb)' ||
  fail "a C program does not build against libftb-dev with pkg-config ftb"
out=$(in_root /tmp/classic) || fail "the libftb-dev program exited $?"
[[ "$out" == "received hello from 0.6.2 code" ]] || fail "the libftb-dev program printed '$out'"
in_root sh -c 'g++ -std=c++20 -Wall -Werror -o /tmp/sdk /tmp/sdk_program.cc $(pkg-config --cflags --libs ftb-cpp)' ||
  fail "a C++ program does not build against libftb-cpp-dev with pkg-config ftb-cpp"
out=$(in_root /tmp/sdk) || fail "the libftb-cpp-dev program exited $?"
[[ "$out" == "received hello from the installed SDK" ]] || fail "the libftb-cpp-dev program printed '$out'"
in_root sh -c 'mpicc -Wall -Werror -o /tmp/ckpt /tmp/ckpt_program.c $(pkg-config --cflags --libs ftbckpt)' ||
  fail "an MPI program does not build against libftbckpt-dev with mpicc and pkg-config ftbckpt"
out=$(in_root env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FTB_JOB_ID=DEBTEST \
  mpirun --oversubscribe -np 2 /tmp/ckpt 2>"$work/mpi.err") || { cat "$work/mpi.err" >&2; fail "the libftbckpt program exited $?"; }
[[ "$out" == "2 ranks checkpointed with the installed libftbckpt" ]] || fail "the libftbckpt program printed '$out'"
echo "deb test passed: ${#debs[@]} packages installed in a fresh root; every program and library works from them"
