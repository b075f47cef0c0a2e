# The real-systemd tier's harness, sourced by every *_test.sh here: a Debian 12
# root booted with `systemd-nspawn -b` (systemd as its PID 1, a network
# namespace of its own with only loopback), the .debs of deploy/package-deb.sh
# installed in it with apt, and helpers to run commands inside and await states.
#
#   source "$(dirname "$0")/container.sh"
#   ct_boot_with_packages                 # or SKIPPED: <why> and exit 0
#   ct_exec systemctl is-active ftb-agent
#   ct_await "agent active" 30 ct_unit_is ftb-agent ActiveState active
#
# Each test boots its own container and everything is gone when it exits:
# nspawn and every process of the container (the container's PID 1 is killed
# last, which ends its PID namespace), its mounts (they live in nspawn's mount
# namespace), its network namespace and the overlay its root is.
#
# Roots are cached under /var/cache/ftb-test: tests/install/fresh_root.sh's
# minimal Debian root; from it a root with systemd, systemd-sysv and openipmi
# (ipmi_sim) installed, made once (systemd_layer.sh); from that, unpacked, a
# root with the .debs' dependencies installed, made once per dependency set
# (deps_root.sh), which each container mounts as the lower layer of an
# overlay. Needs root, systemd-nspawn (systemd-container), overlayfs and
# Debian's archive (for the dependencies; the booted container has no network).
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

ct_runfiles="${TEST_SRCDIR:-}/ftb"
ct_cache=/var/cache/ftb-test

ct_work=""
ct_root=""
ct_nspawn_pid=""
ct_leader=""
ct_overlay=""  # set once $ct_root is an overlay mount

fail() { echo "FAIL: $*" >&2; ct_diagnose >&2 || true; exit 1; }
# The tier cannot run on this machine: one line, counted as skipped by tests/run-all.sh.
ct_skip() { echo "SKIPPED: $*"; exit 0; }

ct_cleanup() {
  set +e
  if [[ -n "$ct_nspawn_pid" ]] && kill -0 "$ct_nspawn_pid" 2>/dev/null; then
    # nspawn passes SIGTERM on to the container's systemd as an orderly poweroff.
    kill -TERM "$ct_nspawn_pid"
    for _ in $(seq 1 100); do kill -0 "$ct_nspawn_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # Killing the container's PID 1 ends every process of its PID namespace.
  if [[ -n "$ct_leader" ]] && kill -0 "$ct_leader" 2>/dev/null; then kill -KILL "$ct_leader"; fi
  if [[ -n "$ct_nspawn_pid" ]] && kill -0 "$ct_nspawn_pid" 2>/dev/null; then kill -KILL "$ct_nspawn_pid"; fi
  [[ -n "$ct_nspawn_pid" ]] && wait "$ct_nspawn_pid" 2>/dev/null
  if [[ -n "$ct_root" ]]; then
    for m in proc sys dev; do mountpoint -q "$ct_root/$m" && umount -l "$ct_root/$m"; done
    [[ -n "$ct_overlay" ]] && { umount "$ct_root" 2>/dev/null || umount -l "$ct_root"; }
  fi
  [[ -n "$ct_work" ]] && rm -rf "$ct_work"
}
trap ct_cleanup EXIT
trap 'exit 143' TERM INT  # Bazel's timeout: still clean up (EXIT trap)

# Runs a command inside the booted container, as root, with a clean environment.
ct_exec() {
  # Entering the mount namespace puts root and working directory at the container's /.
  nsenter --target "$ct_leader" --mount --uts --ipc --net --pid -- \
    /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
# Runs a shell snippet inside the container (bash -euo pipefail).
# Under pipefail, end a pipeline with `grep PATTERN >/dev/null`, not `grep -q`:
# grep -q stops reading at the first match, and the writer's SIGPIPE then fails it.
ct_sh() { ct_exec /bin/bash -euo pipefail -c "$1"; }

# ct_unit_is UNIT PROPERTY VALUE: the unit's property has that value now.
ct_unit_is() { [[ "$(ct_exec systemctl show -P "$2" "$1")" == "$3" ]]; }
ct_prop() { ct_exec systemctl show -P "$2" "$1"; }

# ct_restart UNIT...: systemctl restart UNIT... Now and then systemd in the
# container cannot attach a unit's new process to the unit's cgroup right
# after a daemon-reload ("Failed at step CGROUP", exit 219/CGROUP, before the
# unit's program runs: systemd's doing, not the unit's). Such a unit is
# stopped, its failure and restart count reset (reset-failed), and started
# once more, which is said; any other failure fails the restart.
ct_restart() {
  ct_exec systemctl restart "$@" && return 0
  local unit
  for unit in "$@"; do
    ct_unit_is "$unit" Result success && ct_unit_is "$unit" NRestarts 0 && continue
    ct_sh "journalctl -u $unit -o cat | grep 'Failed at step CGROUP' >/dev/null" || return 1
    echo "note: systemd could not attach $unit's process to its cgroup (219/CGROUP): starting it again"
    ct_exec systemctl stop "$unit" && ct_exec systemctl reset-failed "$unit" && ct_exec systemctl start "$unit" ||
      return 1
  done
}

# ct_await WHAT SECONDS COMMAND...: polls COMMAND (every 0.1 s) until it succeeds.
ct_await() {
  local what=$1 seconds=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "$what: not within ${seconds} s"
    sleep 0.1
  done
}

# ct_descendant PID NAME: the process called NAME below PID (host pids), e.g. the
# program that `ct_exec ... &` started, under its subshell and nsenter.
ct_descendant() {
  local queue=("$1") pid child
  while ((${#queue[@]})); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    for child in $(pgrep -P "$pid"); do
      [[ "$(cat "/proc/$child/comm" 2>/dev/null)" == "$2" ]] && { echo "$child"; return 0; }
      queue+=("$child")
    done
  done
  return 1
}

# What a failing test prints: the units' states and the end of their journal.
ct_diagnose() {
  [[ -n "$ct_leader" ]] && kill -0 "$ct_leader" 2>/dev/null || return 0
  echo "--- systemctl status (ftb units)"
  ct_exec systemctl --no-pager --full status 'ftb-*' 2>&1 | tail -60
  echo "--- journal"
  ct_exec journalctl --no-pager -n 60 -o short-monotonic 2>&1
}

# The container's root: the cached root with this package set's dependencies
# (deps_root.sh, made once per dependency set) under an overlay whose upper
# layer lives in $ct_work, so the cached root is never written to.
ct_prepare_root() {
  local rc=0 lower
  lower=$(bash "$ct_runfiles/tests/system/deps_root.sh" "$ct_work/debs" 2>"$ct_work/deps_root.log") || rc=$?
  ((rc != 3)) || ct_skip "$(tail -1 "$ct_work/deps_root.log")"
  ((rc == 0)) || { cat "$ct_work/deps_root.log" >&2; fail "deps_root.sh could not install the packages' dependencies"; }
  mkdir -p "$ct_root" "$ct_work/upper" "$ct_work/overlay-work"
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$ct_work/upper,workdir=$ct_work/overlay-work" "$ct_root" ||
    ct_skip "cannot mount an overlay on $ct_root (no overlayfs here?)"
  ct_overlay=1
  chmod 0755 "$ct_root"  # every unprivileged service needs to reach it (else 200/CHDIR)
}

# ct_packages DIR: the .debs of deploy/package-deb.sh for this build, copied
# into DIR. Every target of the tier packages the same tree, so the packages
# are made once per content of that tree (a hash of every file the runfiles
# hold outside tests/) and kept under $ct_cache/debs; older sets are removed.
# The copy is made under the lock too: a test of another tree (a second
# checkout, tests/stress.sh's worktree) removes this set when it packages its own.
ct_packages() {
  local out=$1 key set
  mkdir -p "$ct_cache" "$out"
  key=$(cd -P "$ct_runfiles" && find -L . -path ./tests -prune -o -type f -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-16)
  set="$ct_cache/debs/$key"
  (
    flock 9
    if ! compgen -G "$set/*.deb" >/dev/null; then
      rm -rf "$ct_cache/debs"
      mkdir -p "$set.partial"
      bash "$ct_runfiles/deploy/package-deb.sh" --from "$ct_runfiles" --out "$set.partial" >"$ct_work/package.log" 2>&1 ||
        { cat "$ct_work/package.log" >&2; exit 1; }
      mv "$set.partial" "$set"
    fi
    cp "$set"/*.deb "$out/"
  ) 9>"$ct_cache/debs.lock" || fail "deploy/package-deb.sh failed, or its .debs could not be copied"
  compgen -G "$out/*.deb" >/dev/null || fail "deploy/package-deb.sh wrote no .deb into --out"
}

# Builds the .debs, mounts the container's root (its dependencies installed
# already), boots it and installs every .deb with apt inside. Skips (one line)
# when this machine cannot do that; fails when the packages do not install.
ct_boot_with_packages() {
  [[ $(id -u) -eq 0 ]] || ct_skip "needs root (systemd-nspawn, chroot): run the suite as root, as CI does"
  command -v systemd-nspawn >/dev/null || ct_skip "systemd-nspawn missing: run deploy/install-deps.sh (systemd-container)"
  command -v nsenter >/dev/null || ct_skip "nsenter missing: run deploy/install-deps.sh (util-linux)"
  ct_work=$(mktemp -d /tmp/ftb-system-XXXXXX)
  chmod 0755 "$ct_work"
  ct_root="$ct_work/root"

  ct_packages "$ct_work/debs"
  ct_prepare_root
  mkdir -p "$ct_root/root/debs"
  cp "$ct_work"/debs/*.deb "$ct_root/root/debs/"

  ct_boot
  # As an operator would, inside the running system: the maintainer scripts see
  # systemd, enable the units and start them. Every dependency is installed
  # already, and the booted container has no network to fetch from.
  # (No --no-download: apt 2.6 refuses it with local .deb paths.)
  ct_exec /bin/sh -c 'cd /root/debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./*.deb' \
    >"$ct_work/apt.log" 2>&1 || { tail -40 "$ct_work/apt.log" >&2; fail "apt-get install ./*.deb failed inside the booted container"; }
  local broken
  broken=$(ct_exec dpkg-query -W -f='${Package} ${Status}\n' | grep -v ' install ok installed$' || true)
  [[ -z "$broken" ]] || fail "packages not fully installed: $broken"
}

# Boots $ct_root with systemd and waits until its boot is over.
ct_boot() {
  local name
  name="ftbsys$$"
  # --keep-unit --register=no: the host's PID 1 need not be systemd (no machined, no scope).
  systemd-nspawn --quiet --directory="$ct_root" --boot --keep-unit --register=no \
    --private-network --machine="$name" --console=read-only \
    </dev/null >"$ct_work/console.log" 2>&1 &
  ct_nspawn_pid=$!
  local deadline=$((SECONDS + 120))  # about 30 s on an idle machine
  # The container's PID 1 is the child of nspawn that runs systemd.
  while [[ -z "$ct_leader" ]]; do
    kill -0 "$ct_nspawn_pid" 2>/dev/null ||
      ct_skip "systemd-nspawn cannot boot a container here: $(grep -v '^$' "$ct_work/console.log" | tail -1)"
    ((SECONDS < deadline)) || ct_skip "systemd-nspawn started no systemd within 120 s: $(tail -1 "$ct_work/console.log")"
    for child in $(pgrep -P "$ct_nspawn_pid" 2>/dev/null); do
      [[ "$(cat "/proc/$child/comm" 2>/dev/null)" == systemd ]] && ct_leader=$child
    done
    [[ -n "$ct_leader" ]] || sleep 0.1
  done
  local state=""
  while ((SECONDS < deadline)); do
    state=$(ct_exec systemctl is-system-running 2>/dev/null || true)
    [[ "$state" == running || "$state" == degraded ]] && break
    sleep 0.2
  done
  [[ "$state" == running || "$state" == degraded ]] ||
    ct_skip "the container's systemd did not finish booting within 120 s (state '$state'): $(tail -1 "$ct_work/console.log")"
}

# The unit's log since it last started, messages only.
ct_journal() { ct_exec journalctl --no-pager -o cat -u "$1" "${@:2}"; }
