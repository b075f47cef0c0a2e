#!/usr/bin/env bash
# The ULFM tier (tests/ulfm/BUILD): in a Debian trixie root (trixie_root.sh,
# cached), ftbckpt and the stencil are compiled against Open MPI 5.0.7
# (build_in_root.sh; the objects are cached by the hash of the sources and the
# root), then the stencil runs under `mpirun --with-ft ulfm`: without
# failures, and with one rank SIGKILLed mid-run, its node suspect (the
# replacement goes to the spare node) and not (in place). Each run with a kill
# must go on with the survivors and a replacement (one mpirun, no relaunch)
# and end with the same checksum, bit for bit. Then the variants below.
#
# Every command in the root runs in its own mount and PID namespaces (proc,
# sys, dev, a tmpfs /dev/shm and /tmp), under a deadline: the whole namespace
# is killed when it passes (MPI_Finalize can hang after a recovery).
# Prints "SKIPPED: <why>" and exits 0 where the root cannot be built.
#
# `--bench [ROUNDS] [local]` (bazel run //tests/ulfm:run_through_bench [-- ROUNDS [local]]):
# the same with 8 ranks x 64 MiB, ROUNDS (3) runs with a kill, each one's
# phases printed; then local against global rollback (local_vs_global_bench.sh),
# which `local` runs alone.
# `--build-only`: makes the cached root and the cached in-root build, then
# exits (tests/run-all.sh runs it beside the other tests, so that this tier,
# which runs alone at the end, finds both ready).
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
runfiles=${TEST_SRCDIR:-${RUNFILES_DIR:-$0.runfiles}}
here="$runfiles/ftb/tests/ulfm"
src_root="$runfiles/ftb"
netns_switch="$src_root/tests/lib/netns_switch.sh"
cache=/var/cache/ftb-test
build_only=""
if [[ "${1:-}" == --build-only ]]; then
  build_only=1
  shift
fi
if [[ "${1:-}" == --bench ]]; then
  rounds=${2:-3}
  bench_part=${3:-all}
  [[ "$rounds" =~ ^[1-9][0-9]*$ && "$bench_part" =~ ^(all|local)$ ]] ||
    { echo "usage: $0 --bench [ROUNDS] [local]" >&2; exit 2; }
  ranks=8
  node_map=n0,n1,n2,n3,n4,n5,n6,n7
  # 2050 x 4098 doubles: 64 MiB per rank.
  stencil_args=(--nx 2048 --ny 4096 --iterations 12 --checkpoint-every 4)
  crash=(--crash-at 6 --crash-node n7)
  # FTBCKPT_ASYNC=1: later, so that the checkpoint of iteration 4, completed in
  # the background, is there to restore (at 6 it may still be in flight: no
  # complete checkpoint, and the job ends with that error).
  crash_async=(--crash-at 10 --crash-node n7)
  hang_rank=7
  hang=(--hang-at 6 --hang-rank 7)
  victim="rank 7 kills itself at iteration"
  victim_node=n7
  deadline=120
  bench=1
else
  rounds=1
  ranks=4
  node_map=n0,n1,n2,n3
  stencil_args=(--nx 128 --ny 128 --iterations 200 --checkpoint-every 20 --iteration-ms 2)
  # Rank 3 (alone on node n3) SIGKILLs itself at iteration 50; the last
  # checkpoint was at iteration 40.
  crash=(--crash-at 50 --crash-node n3)
  # Case 4: rank 3 hangs in its own code at iteration 50 instead.
  hang_rank=3
  hang=(--hang-at 50 --hang-rank 3)
  victim="rank 3 kills itself at iteration"
  victim_node=n3
  deadline=120
  bench=""
fi

skip() { echo "SKIPPED: $*"; exit 0; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "needs root (chroot, namespaces): run the suite as root, as CI does"
command -v unshare >/dev/null || skip "unshare missing (util-linux)"

work=$(mktemp -d /var/tmp/ftb-ulfm-XXXXXX)
ns_pid=""
agent_pid=""
watch_pid=""
node_agents=""
lab_up=""
cleanup() {
  set +e
  [[ -n "$lab_up" ]] && bash "$netns_switch" down "$lab_tag-head" "${lab_nodes[@]/#/$lab_tag-}"
  [[ -n "$watch_pid" ]] && kill $watch_pid 2>/dev/null
  [[ -n "$agent_pid" ]] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null
  for pid in $node_agents; do kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  [[ -n "$ns_pid" ]] && kill -KILL "$ns_pid" 2>/dev/null && wait "$ns_pid" 2>/dev/null
  # The root is an overlay on the cached one (trixie_root.sh): unmounted first,
  # so that removing the directory never reaches into the cache.
  mountpoint -q "$root" && { umount "$root" || umount -l "$root"; }
  # FTB_KEEP_TEST_DIRS=1 keeps the logs for a post-mortem (not the root).
  if [[ "${FTB_KEEP_TEST_DIRS:-}" == 1 ]]; then
    rm -rf "$root" "$root.overlay"
    echo "kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT
root=$work/root

t0=$SECONDS
rc=0
cached_root=$(bash "$here/trixie_root.sh" "$root" 2>"$work/root.log") || rc=$?
if ((rc == 3)); then skip "$(tail -1 "$work/root.log")"; fi
((rc == 0)) || { cat "$work/root.log" >&2; fail "trixie_root.sh failed ($rc)"; }
echo "root $cached_root ready in $((SECONDS - t0)) s"

# in_root SECONDS COMMAND...: runs COMMAND in the root (enter_root.sh); kills
# the namespace after SECONDS, or $grace seconds after $done_file contains a
# RESULT line (when set): the computation is over, only MPI's teardown is
# left, and it can hang.
done_file=""
grace=15
in_root() {
  local seconds=$1
  shift
  bash "$here/enter_root.sh" "$root" "$@" &
  ns_pid=$!
  local deadline=$((SECONDS + seconds)) status=0
  local result_seen=""
  while kill -0 "$ns_pid" 2>/dev/null; do
    if [[ -n "$done_file" && -z "$result_seen" ]] && grep -aq '^RESULT ' "$done_file" 2>/dev/null; then
      result_seen=1
      ((deadline < SECONDS + grace)) || deadline=$((SECONDS + grace))
    fi
    if ((SECONDS >= deadline)); then
      kill -KILL "$ns_pid" 2>/dev/null
      wait "$ns_pid" 2>/dev/null || true
      ns_pid=""
      return 124
    fi
    sleep 0.2
  done
  wait "$ns_pid" || status=$?
  ns_pid=""
  return "$status"
}

# ftbckpt, the stencil and the probe, from exactly the files Bazel compiles them from.
programs=(components/mpi_bridge/examples/stencil.c components/mpi_bridge/examples/master_worker.c
  tests/ulfm/group_wait_probe.c)
for l in example_sources probe_sources; do
  [[ -s "$here/$l.list" ]] || fail "no source list $l (cc_sources) in the runfiles"
done
mkdir -p "$root/src"
sort -u "$here/example_sources.list" "$here/probe_sources.list" >"$root/src/sources.list"
(cd "$src_root" && xargs -a "$root/src/sources.list" cp -L --parents -t "$root/src")
cp "$here/build_in_root.sh" "$root/src/"
key=$( (cd "$root/src" && sort sources.list | xargs sha256sum; sha256sum build_in_root.sh; echo "$cached_root") |
  sha256sum | cut -c1-16)
built=$cache/ulfm-build/$key
t0=$SECONDS
# Under a lock, the copy too: a test of another tree (a second checkout,
# tests/stress.sh's worktree) replaces the cached build with its own.
exec 8>"$cache/ulfm-build.lock"
flock 8
if [[ ! -x "$built/stencil" || ! -x "$built/master_worker" || ! -x "$built/group_wait_probe" ]]; then
  in_root 900 /bin/bash -c "cd /src && nice bash build_in_root.sh sources.list /src/out ${programs[*]}" \
    >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "building ftbckpt in the trixie root failed"; }
  rm -rf "$cache/ulfm-build"
  mkdir -p "$built.partial"
  cp "$root/src/out/stencil" "$root/src/out/master_worker" "$root/src/out/group_wait_probe" "$built.partial/"
  mv "$built.partial" "$built"
  echo "$(tail -1 "$work/build.log") in $((SECONDS - t0)) s (cached as ulfm-build/$key)"
else
  echo "stencil and probe of these sources cached (ulfm-build/$key)"
fi
mkdir -p "$root/src/out"
cp "$built/stencil" "$built/master_worker" "$built/group_wait_probe" "$root/src/out/"
flock -u 8
exec 8>&-
[[ -z "$build_only" ]] || exit 0

# An ftb-agent on the host for the ranks in the root, and `ftbctl watch`
# recording what they publish. Its socket's directory appears in the root as
# /run/ftb-agent (enter_root.sh): the ranks are local clients, as on a real
# node, so the agent watches their processes and a killed rank's last will
# goes out within milliseconds (a TCP client's only after --client-timeout-ms).
mkdir -p "$work/agent"
export FTB_ROOT_AGENT_DIR=$work/agent
ftbctl=("$src_root/cli/ftbctl" --agent "ipc://$work/agent/agent.sock")
# A tree on loopback without keys (the node-loss case below adds a child agent).
"$src_root/agent/ftb-agent" --ipc-endpoint="ipc://$work/agent/agent.sock" --tcp-endpoint=tcp://127.0.0.1:0 \
  --tree-authentication insecure-none >"$work/agent.log" 2>&1 &
agent_pid=$!
served=""
for _ in $(seq 1 300); do
  served=$(grep -o 'tcp://127\.0\.0\.1:[0-9]*' "$work/agent.log" | head -1) && [[ -n "$served" ]] && break
  kill -0 "$agent_pid" 2>/dev/null || { cat "$work/agent.log" >&2; fail "ftb-agent exited at start"; }
  sleep 0.1
done
[[ -n "$served" ]] || fail "ftb-agent did not say where it serves within 30 s"
endpoint=ipc:///run/ftb-agent/agent.sock
"${ftbctl[@]}" watch --client-name ulfm-watch --filter 'event_space=FTB.MPI.FTBCKPT' >"$work/events.log" 2>&1 &
watch_pid=$!
for _ in $(seq 1 300); do
  "${ftbctl[@]}" clients 2>/dev/null | grep -q ulfm-watch && break
  sleep 0.1
done
"${ftbctl[@]}" clients 2>/dev/null | grep -q ulfm-watch || fail "ftbctl watch did not subscribe within 30 s"

# One stencil job under --with-ft ulfm; output in $work/$1.log.
mpi_env=(-x FTB_AGENT_ENDPOINT="$endpoint" -x FTB_JOB_ID=ULFM -x FTBCKPT_LEVEL=L3 -x FTBCKPT_GROUP_SIZE=4
  -x FTBCKPT_NODE_MAP=$node_map -x FTBCKPT_SPARE_NODES=s0 -x FTBCKPT_RUN_THROUGH_TRACE=1)
# extra_env: more -x VAR=value for that job; program: what each rank runs.
extra_env=()
program=/src/out/stencil
run_job() {
  local name=$1 seconds=$2
  shift 2
  local status=0
  done_file=$work/$name.log
  in_root "$seconds" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --with-ft ulfm --oversubscribe --mca btl self,sm,tcp --mca btl_tcp_if_include lo -np "$ranks" \
    "${mpi_env[@]}" "${extra_env[@]}" "$program" "${stencil_args[@]}" "$@" >"$work/$name.log" 2>&1 || status=$?
  done_file=""
  echo "$status"
}
result() { grep -a -m1 -o 'RESULT iterations=[0-9]* checksum=[0-9a-f]*' "$work/$1.log" || true; }
events_log=$work/events.log  # the watch's record that await_events reads
await_events() {  # PATTERN...: each recorded by the watch within 30 s
  local e missing
  for _ in $(seq 1 300); do
    missing=""
    for e in "$@"; do grep -aq "$e" "$events_log" || missing=$e; done
    [[ -z "$missing" ]] && return 0
    sleep 0.1
  done
  cat "$events_log" >&2
  fail "no event matching '$missing' within 30 s"
}

pids_of_ranks() {  # JOB RANK...: the host pids of those ranks of job JOB (FTB_JOB_ID)
  local pid r env
  for pid in $(pgrep -f '^/src/out/stencil '); do
    env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || continue
    grep -qx "FTB_JOB_ID=$1" <<<"$env" || continue
    for r in "${@:2}"; do grep -qx "OMPI_COMM_WORLD_RANK=$r" <<<"$env" && echo "$pid"; done
  done
  return 0  # none found is an empty answer, not a failure (set -e)
}

# Where the replacement goes (replacement_placement.h): the spare s0 when the
# dead rank's node is suspect, as the job's launcher says with FTB_NLA_STATE
# (published here as ftb-run would; the runtime replays the newest at
# connect): its memory is then out of reach and the rank is rebuilt from its
# group's parity. In place otherwise, though s0 is free: the node still holds
# the dead rank's own copy, which it restores from, nothing rebuilt.
node_state() {  # NODE STATE
  "${ftbctl[@]}" publish --space "FTB.NLA.$job_id" --name FTB_NLA_STATE --severity info --job-id "$job_id" \
    --payload "$1 $2" --tag "host=$1" --tag "state=$2" >/dev/null || fail "ftbctl publish FTB_NLA_STATE $1 $2 failed"
}
no_other_restored() {  # CORR RANK WHAT: no rank but RANK restored under recovery CORR (local rollback)
  ! grep -a "FTB_RESTART_DONE .*corr=$1 " "$work/events.log" | grep -avq " rank=$2 " ||
    { cat "$work/events.log" >&2; fail "$3: a survivor restored (global rollback)"; }
}
only_restored() {  # CORR RANK WHAT: RANK restored under recovery CORR, and no other rank did
  await_events "FTB_RESTART_DONE .*corr=$1 .*rank=$2 "
  no_other_restored "$@"
}

await_compute_phases() {  # LOG N: until N ranks said in LOG that they entered their compute phase (60 s at most)
  for _ in $(seq 1 600); do
    (($(cat "$1" 2>/dev/null | grep -ac 'computes for up to') >= $2)) && return 0  # (LOG may not be there yet)
    sleep 0.1
  done
  return 0  # the caller's next check says what is missing
}

# The bench's failure-free overhead of the ULFM path: bare mpirun (no --with-ft,
# no runtime: FTBCKPT_AGENT=0) against `mpirun --with-ft ulfm` with ftbckpt
# connected to the agent, no checkpoints either way (their cost is ckpt_bench's),
# 60 iterations as recovery_bench's relaunch path, interleaved, best of 3.
overhead_run() {
  local ft=$1 status=0 t
  local args=(--oversubscribe --mca btl self,sm,tcp --mca btl_tcp_if_include lo -np "$ranks")
  if [[ "$ft" == ulfm ]]; then args=(--with-ft ulfm "${args[@]}" "${mpi_env[@]}"); else args+=(-x FTBCKPT_AGENT=0); fi
  done_file=$work/overhead.log
  t=$(date +%s.%N)
  in_root "$deadline" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun "${args[@]}" /src/out/stencil --nx 2048 --ny 4096 --iterations 60 >"$work/overhead.log" 2>&1 || status=$?
  done_file=""
  ((status == 0)) || { cat "$work/overhead.log" >&2; fail "the failure-free $ft run exited $status"; }
  awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN {printf "%.3f", b - a}'
}
if [[ "${1:-}" == --bench ]]; then
  "$runfiles/ftb/bench/print_environment" || echo "environment: ? (no bench/print_environment)"  # bench/environment.h
fi
if [[ "${1:-}" == --bench && "$bench_part" == local ]]; then
  source "$here/local_vs_global_bench.sh"
  local_vs_global_bench "$rounds"
  exit 0
fi
if [[ "${1:-}" == --bench ]]; then
  bare_times="" ulfm_times=""
  for _ in 1 2 3; do
    bare_times+=" $(overhead_run bare)"
    ulfm_times+=" $(overhead_run ulfm)"
  done
  awk -v ranks="$ranks" -v bare="$bare_times" -v ulfm="$ulfm_times" 'function best(list,   n, v, i, m) {
      n = split(list, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] < m) m = v[i]; return m }
    BEGIN {b = best(bare); u = best(ulfm)
      printf "BENCH ULFM failure-free, %d ranks x 64 MiB, 60 iterations, no checkpoints, best of 3: bare mpirun %.2f s; " \
        "mpirun --with-ft ulfm with ftbckpt connected %.2f s (overhead %.1f %%)\n", ranks, b, u, 100 * (u - b) / b}'
fi

t0=$SECONDS
status=$(run_job clean "$deadline")
clean=$(result clean)
[[ -n "$clean" ]] || { cat "$work/clean.log" >&2; fail "the failure-free run printed no RESULT (exit $status)"; }
((status == 0)) || { cat "$work/clean.log" >&2; fail "the failure-free run exited $status"; }
echo "failure-free: $clean in $((SECONDS - t0)) s"

placements=(spare in-place)
# The bench also times the spare with FTBCKPT_ASYNC=1: the group's part of the
# re-protection in the background (the tier's test runs that case below).
[[ -n "$bench" ]] && placements+=(spare-async)
hung=0
for placement in "${placements[@]}"; do
  background=""
  extra_env=()
  if [[ "$placement" == spare* ]]; then
    state=MIGRATION_INACTIVE
    where="replacement on the spare" lost_level=L3 lost_rebuilt=xor
    crash_args=("${crash[@]}")
    # Rebuilt: the replacement writes its file of the restored checkpoint again
    # (its L1 and its parity, from its group's files); only its group takes part.
    lost_scope=group scope='[a-z]*' seconds='[0-9.]*'
    if [[ "$placement" == spare-async ]]; then
      extra_env=(-x FTBCKPT_ASYNC=1)
      crash_args=("${crash_async[@]}")
      where="replacement on the spare, FTBCKPT_ASYNC=1"
      background='\(protect_background=1 \)\?'
    fi
  else
    state=MIGRATION_READY
    where="replacement in place" lost_level=L1 lost_rebuilt=none
    crash_args=("${crash[@]}" --crash-once)  # the replacement, on the same node, restored: no second kill
    # Nothing rebuilt: every copy of the restored checkpoint is still in place.
    lost_scope=none scope=none seconds=0
  fi
  for round in $(seq 1 "$rounds"); do
    # A job id per round: each round's events apart from the others'.
    job_id=ULFM-$placement-$round
    node_state "$victim_node" "$state"
    t0=$SECONDS
    status=$(extra_env+=(-x FTB_JOB_ID="$job_id") && run_job crash "$deadline" "${crash_args[@]}")
    crashed=$(result crash)
    grep -aq "$victim" "$work/crash.log" || { cat "$work/crash.log" >&2; fail "no '$victim'"; }
    if [[ -z "$crashed" && -n "$bench" ]]; then
      # A bench round that never recovered is a figure too (Open MPI 5.0.7 at
      # times detects nothing): said, and the other rounds still run.
      echo "BENCH ULFM run-through $round/$rounds ($ranks ranks, $where): NO RECOVERY: no RESULT within ${deadline} s (exit $status); its log:"
      sed 's/^/  /' "$work/crash.log"
      hung=$((hung + 1))
      continue
    fi
    [[ -n "$crashed" ]] || { cat "$work/crash.log" >&2; fail "the run with a killed rank printed no RESULT (exit $status)"; }
    grep -aq 'run-through .* step computing' "$work/crash.log" ||
      { cat "$work/crash.log" >&2; fail "no run-through recovery reported"; }
    [[ "$crashed" == "$clean" ]] ||
      { cat "$work/crash.log" >&2; fail "not bit-exact: '$crashed' after the recovery, '$clean' without"; }
    grep -a 'run-through\|kills itself' "$work/crash.log"
    # The phases, from the wall-clock times of the kill and of each step (rank 0's).
    awk '/kills itself/ {for (i = 1; i <= NF; i++) if ($i == "time") k = $(i + 1)}
      /run-through .* step/ {for (i = 1; i <= NF; i++) {if ($i == "step") s = $(i + 1); if ($i == "time") t = $(i + 1)
          if ($i ~ /^by=/) s = s " (" substr($i, 4) ")"}
        printf "%s %.0f ms  ", s, (t - k) * 1000}
      END {print "(after the SIGKILL)"}' "$work/crash.log" |
      sed "s/^/BENCH ULFM run-through $round\/$rounds ($ranks ranks, $where): /" | tee -a "$work/phases-$placement.log"
    if ((status != 0)); then
      # The computation is complete and checked; only the teardown is late.
      echo "note: mpirun ended with status $status after RESULT (MPI_Finalize after a recovery hangs or crashes in Open MPI 5.0.7 at times; see components/mpi_bridge/README.md)"
    fi
    # The story as events, all with the recovery's correlation id: every step
    # from rank 0, every rank's restore (the replacement rebuilt, survivors from
    # L1), the restored checkpoint whole again at L3 before they compute on (its
    # own id: protected_ckpt_id is the restored ckpt_id, \1).
    corr=$(grep -ao 'run-through rt-[^ ]* rank 0 step computing' "$work/crash.log" | awk '{print $2}')
    lost=${victim#rank }
    lost=${lost%% *}
    expected=()
    for step in detected shrunk spawned restored computing; do expected+=("FTB_RUN_THROUGH .*corr=$corr .*step=$step"); done
    # The replacement was spawned with a `host` info key: the machine its rank ran
    # on (FTBCKPT_NODE_MAP makes the spare s0 a name only; the root shares our host name).
    expected+=("FTB_RUN_THROUGH .*corr=$corr hosts=$(hostname) .*step=spawned")
    [[ "$placement" == spare* ]] && replacement_node=s0 || replacement_node=$victim_node
    expected+=("FTB_RUN_THROUGH .*corr=$corr .*nodes=$replacement_node .*step=spawned")
    for r in $(seq 0 $((ranks - 1))); do
      protected="protected_ckpt_id=\\1 protected_level=L3"
      if ((r == lost)); then
        expected+=("FTB_RESTART_DONE .*ckpt_id=\\([0-9]*\\) corr=$corr level=$lost_level ${background}protect_scope=$lost_scope protect_seconds=$seconds $protected rank=$r rebuilt=$lost_rebuilt")
      else
        expected+=("FTB_RESTART_DONE .*ckpt_id=\\([0-9]*\\) corr=$corr level=L1 ${background}protect_scope=$scope protect_seconds=$seconds $protected rank=$r rebuilt=none")
      fi
    done
    await_events "${expected[@]}"
    echo "events: ${#expected[@]} with corr=$corr (every step; ranks restored, rank $lost: rebuilt=$lost_rebuilt)"
    if [[ -n "$bench" ]]; then  # what making the checkpoint whole again cost the lost rank's group
      done_line=$(grep -a "FTB_RESTART_DONE .*corr=$corr .*rank=$lost " "$work/events.log" | head -1)
      echo "BENCH ULFM re-protection $round/$rounds ($ranks ranks, $where): $(grep -o 'protect_scope=[a-z]*' <<<"$done_line") $(grep -o 'protect_seconds=[0-9.]*' <<<"$done_line") s"
    fi
    echo "run-through $round/$rounds ($ranks ranks, $where): $crashed in $((SECONDS - t0)) s, bit-exact, one mpirun"
  done
done
extra_env=()
if ((hung > 0)); then
  echo "FAIL: $hung of $rounds rounds did not recover (see their BENCH lines)" >&2
  exit 1
fi

# The reference (issue 33): Open MPI alone, no ftb (bare_ulfm_reference.c), the
# same ranks and MiB per rank, the last rank SIGKILLed at iteration 6 and every
# rank's data copied back from node memory; its median beside ftb's.
if [[ -n "$bench" ]]; then
  cp "$here/bare_ulfm_reference.c" "$root/src/"
  in_root 300 /bin/bash -c "cd /src && mpicc -O2 -Wall -Wextra -o /src/out/bare_ulfm_reference bare_ulfm_reference.c" \
    >"$work/bare-build.log" 2>&1 || { cat "$work/bare-build.log" >&2; fail "bare_ulfm_reference did not build in the root"; }
  for round in $(seq 1 "$rounds"); do
    status=0
    done_file=$work/bare.log
    in_root "$deadline" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --with-ft ulfm --oversubscribe --mca btl self,sm,tcp --mca btl_tcp_if_include lo -np "$ranks" \
      /src/out/bare_ulfm_reference 64 12 6 "r$round" >"$work/bare.log" 2>&1 || status=$?
    done_file=""
    phases=$(grep -a '^BARE_ULFM ' "$work/bare.log" | head -1)
    if [[ -z "$phases" ]]; then
      echo "BENCH bare ULFM reference $round/$rounds ($ranks ranks): NO RECOVERY (exit $status); its log:"
      sed 's/^/  /' "$work/bare.log"
      continue
    fi
    echo "BENCH bare ULFM reference $round/$rounds ($ranks ranks): ${phases#BARE_ULFM } (after the SIGKILL)" |
      tee -a "$work/bare-phases.log"
  done
  # Medians of kill -> computing again, and ftb's as a multiple of the reference's.
  median() { grep -ao "$1[0-9]*" "$2" | grep -o '[0-9]*$' | sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'; }
  bare_ms=$(median 'computing_ms=' "$work/bare-phases.log" 2>/dev/null || true)
  for placement in "${placements[@]}"; do
    ftb_ms=$(median 'computing ' "$work/phases-$placement.log" 2>/dev/null || true)
    if [[ -n "$ftb_ms" && -n "$bare_ms" && "$bare_ms" -gt 0 ]]; then
      awk -v f="$ftb_ms" -v b="$bare_ms" -v n="$rounds" -v p="$placement" 'BEGIN {
        printf "BENCH ULFM kill -> computing again, median of %d: ftb (replacement %s) %.3f s, bare ULFM reference %.3f s = %.2fx the reference\n", n, p, f / 1000, b / 1000, f / b}'
    fi
  done
  source "$here/local_vs_global_bench.sh"
  local_vs_global_bench "$rounds"
  exit 0
fi

# The hang of issue 18, deterministic (group_wait_probe.c): rank 1 starts a
# checkpoint that its group {0,1} left for the repair after rank 3's death.
# The runtime must revoke the group's communicator too, or rank 1 and the
# repair's shrink wait for each other until the deadline. With --app-comm
# rank 1 waits instead on a communicator the application split itself and
# gave to ftbckpt_watch_comm. run_probe NAME [ARG]: its log is $work/NAME.log.
run_probe() {
  local name=$1 status=0 result
  shift
  done_file=$work/$name.log
  in_root 60 /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --with-ft ulfm --oversubscribe --mca btl self,sm,tcp --mca btl_tcp_if_include lo -np 4 \
    -x FTB_AGENT_ENDPOINT="$endpoint" -x FTB_JOB_ID=PROBE -x FTBCKPT_LEVEL=L3 -x FTBCKPT_GROUP_SIZE=2 \
    -x FTBCKPT_NODE_MAP=n0,n1,n2,n3 -x FTBCKPT_RUN_THROUGH_TRACE=1 /src/out/group_wait_probe "$@" \
    >"$work/$name.log" 2>&1 || status=$?
  done_file=""
  result=$(grep -a -m1 -o 'RESULT values=[0-9,]*' "$work/$name.log" || true)
  [[ -n "$result" ]] || { cat "$work/$name.log" >&2; fail "$name: no RESULT within 60 s (exit $status): the repair hung"; }
  grep -aq 'run-through .* step computing' "$work/$name.log" ||
    { cat "$work/$name.log" >&2; fail "$name: no run-through recovery reported"; }
  [[ "$result" == "RESULT values=4,1004,2004,3004" ]] ||
    { cat "$work/$name.log" >&2; fail "$name: '$result', not 'RESULT values=4,1004,2004,3004'"; }
  echo "$result"
}
t0=$SECONDS
probe=$(run_probe probe)
grep -aq 'rank 1: checkpoint while its group left returned -' "$work/probe.log" ||
  { cat "$work/probe.log" >&2; fail "group_wait_probe: rank 1's checkpoint did not end in an error"; }
echo "group_wait_probe: rank 1's checkpoint in a group that left for the repair ended in an error; run through, $probe in $((SECONDS - t0)) s"
t0=$SECONDS
probe=$(run_probe probe_app --app-comm)
grep -aq "rank 1: allreduce on the application's communicator returned [1-9]" "$work/probe_app.log" ||
  { cat "$work/probe_app.log" >&2; fail "group_wait_probe --app-comm: rank 1's allreduce did not end in an error"; }
echo "group_wait_probe --app-comm: rank 1's allreduce on a watched communicator of the application ended in an error; run through, $probe in $((SECONDS - t0)) s"

# The same kill with the group part of checkpoints on each rank's background
# thread (FTBCKPT_ASYNC=1): after the repair the survivors must checkpoint on
# duplicates of the new communicators, as the replacement does. With the old,
# revoked ones every later checkpoint failed on the survivors while the
# replacement waited for them.
t0=$SECONDS
job_id=ULFMASYNC
node_state "$victim_node" MIGRATION_INACTIVE  # to the spare s0: rebuilt, then protected again
extra_env=(-x FTBCKPT_ASYNC=1 -x FTB_JOB_ID=$job_id)
status=$(run_job async "$deadline" "${crash[@]}")
extra_env=()
async=$(result async)
[[ -n "$async" ]] || { cat "$work/async.log" >&2; fail "FTBCKPT_ASYNC=1: no RESULT after the kill (exit $status)"; }
grep -aq 'run-through .* step computing' "$work/async.log" ||
  { cat "$work/async.log" >&2; fail "FTBCKPT_ASYNC=1: no run-through recovery reported"; }
[[ "$async" == "$clean" ]] || { cat "$work/async.log" >&2; fail "FTBCKPT_ASYNC=1: '$async', not '$clean'"; }
# (One in flight when the rank died may fail: only those after count.)
after_recovery=$(awk '/run-through .* step computing/ {after = 1} after' "$work/async.log")
! grep -a 'checkpoint failed\|asynchronous checkpoint [0-9]*:' <<<"$after_recovery" ||
  { cat "$work/async.log" >&2; fail "FTBCKPT_ASYNC=1: a checkpoint after the recovery failed"; }
# Rank 3 rebuilt on the spare: its group's exchange that writes its file of
# the restored checkpoint again ran in the background while the job computed
# on; each member's FTB_RESTART_DONE said so once it was done.
await_events "FTB_RESTART_DONE .*corr=rt-$job_id-1-r3 level=L3 protect_background=1 protect_scope=group .*protected_level=L3 rank=3 rebuilt=xor"
echo "FTBCKPT_ASYNC=1: run through, $async in $((SECONDS - t0)) s, re-protected in the background, every later checkpoint complete"

# Local rollback (issue 34): with FTBCKPT_LOCAL_ROLLBACK=1 the ranks log
# their traffic; after the repair they exchange their logs' accounts, and
# since rank 3 was replaced in place (its checkpoint in its node's memory),
# only rank 3 restarts, from checkpoint line 1 (the stencil checkpoints every
# 20 iterations and rank 3 dies at 50): the survivors resend what they sent
# it since, skip what it sends again, and keep their state. Without it every
# rank restores (a FTB_RESTART_DONE from a survivor, step computing
# recovery=global), which this case refuses.
t0=$SECONDS
job_id=ULFMLOCAL
node_state "$victim_node" MIGRATION_READY
extra_env=(-x FTBCKPT_LOCAL_ROLLBACK=1 -x FTB_JOB_ID=$job_id)
status=$(run_job local "$deadline" "${crash[@]}" --crash-once)
extra_env=()
local_result=$(result local)
[[ "$local_result" == "$clean" ]] ||
  { cat "$work/local.log" >&2; fail "FTBCKPT_LOCAL_ROLLBACK=1: '$local_result' (exit $status), not '$clean'"; }
grep -aq 'rank 0: local rollback of rank 3 from checkpoint line 1 (channels to resend [1-9]' "$work/local.log" ||
  { cat "$work/local.log" >&2; fail "FTBCKPT_LOCAL_ROLLBACK=1: rank 0 did not plan a local rollback of rank 3 from line 1"; }
await_events "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r3 .*recovery=local .*step=planned" \
  "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r3 .*recovery=local .*step=computing"
only_restored "rt-$job_id-1-r3" 3 "FTBCKPT_LOCAL_ROLLBACK=1"
echo "FTBCKPT_LOCAL_ROLLBACK=1: $(grep -ao 'local rollback of rank 3 [^;]*' "$work/local.log" | head -1); only rank 3 restored, $local_result in $((SECONDS - t0)) s, bit-exact"

# The master-worker loop (examples/master_worker.c: the master takes answers
# with wildcard receives, an allreduce and a broadcast every round) under
# local rollback: worker 3 kills itself at round 25 (checkpoints every 10
# rounds) and alone replays from checkpoint line 1, the master's items resent,
# the round's collectives handed over; the table bit-exact against the
# failure-free run's.
t0=$SECONDS
program=/src/out/master_worker
saved_args=("${stencil_args[@]}")
stencil_args=(--items 600 --checkpoint-every 10)
mw_result() { grep -a -m1 -o 'RESULT items=[0-9]* checksum=[0-9a-f]*' "$work/$1.log" || true; }
extra_env=(-x FTB_JOB_ID=ULFMMWCLEAN)
run_job mwclean "$deadline" >/dev/null
[[ -n "$(mw_result mwclean)" ]] || { cat "$work/mwclean.log" >&2; fail "master_worker: no RESULT without failures"; }
job_id=ULFMMW
node_state "$victim_node" MIGRATION_READY
extra_env=(-x FTBCKPT_LOCAL_ROLLBACK=1 -x FTB_JOB_ID=$job_id)
status=$(run_job mw "$deadline" --crash-at 25 --crash-rank 3)
extra_env=()
program=/src/out/stencil
stencil_args=("${saved_args[@]}")
[[ "$(mw_result mw)" == "$(mw_result mwclean)" ]] ||
  { cat "$work/mw.log" >&2; fail "master_worker: '$(mw_result mw)' (exit $status), not '$(mw_result mwclean)'"; }
grep -aq 'rank 0: local rollback of rank 3 from checkpoint line 1 (channels to resend [1-9]' "$work/mw.log" ||
  { cat "$work/mw.log" >&2; fail "master_worker: rank 0 did not plan a local rollback of worker 3 from line 1"; }
await_events "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r3 .*recovery=local .*step=computing"
only_restored "rt-$job_id-1-r3" 3 master_worker
echo "master_worker: $(grep -ao 'local rollback of rank 3 [^;]*' "$work/mw.log" | head -1); only worker 3 restored, $(mw_result mw) in $((SECONDS - t0)) s, bit-exact"

# The master lost (rank 0 at round 25): its replacement replays its
# nondeterministic outcomes from the determinants its predecessor left in the
# node's memory (determinant_store.h): which worker's answer each wildcard
# receive took or, with --nonblocking, which requests each MPI_Waitany and
# MPI_Waitsome found complete (and with --any-source, the channel each
# wildcard MPI_Irecv matched, posted on it); and --gather's MPI_Gather at the
# master takes the survivors' contributions from their logs. Without them the recovery would be global ("not
# in this node's memory"); replayed in another order, the master's record of
# what it handed each worker would differ from the workers' (the run ends).
for mode in wildcard nonblocking nonblocking-any; do
  t0=$SECONDS
  program=/src/out/master_worker
  stencil_args=(--items 600 --checkpoint-every 10 --gather)
  [[ "$mode" == nonblocking* ]] && stencil_args+=(--nonblocking)
  [[ "$mode" == *-any ]] && stencil_args+=(--any-source)
  job_id=ULFMMASTER-$mode
  node_state n0 MIGRATION_READY
  extra_env=(-x FTBCKPT_LOCAL_ROLLBACK=1 -x FTB_JOB_ID=$job_id)
  status=$(run_job "mwmaster-$mode" "$deadline" --crash-at 25 --crash-rank 0)
  extra_env=()
  program=/src/out/stencil
  stencil_args=("${saved_args[@]}")
  [[ "$(mw_result "mwmaster-$mode")" == "$(mw_result mwclean)" ]] ||
    { cat "$work/mwmaster-$mode.log" >&2; fail "master_worker ($mode), master lost: '$(mw_result "mwmaster-$mode")' (exit $status), not '$(mw_result mwclean)'"; }
  grep -aq 'rank 0: local rollback of rank 0 from checkpoint line 1 ' "$work/mwmaster-$mode.log" ||
    { cat "$work/mwmaster-$mode.log" >&2; fail "master_worker ($mode), master lost: no local rollback of rank 0 from line 1"; }
  only_restored "rt-$job_id-1-r0" 0 "master_worker ($mode), master lost"
  # Rank 0 lost: the lowest survivor, rank 1, reports the steps.
  await_events "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r0 .* rank=1 .*recovery=local .*step=planned" \
    "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r0 .* rank=1 .*recovery=local .*step=computing"
  echo "master_worker ($mode), master lost: its outcomes replayed from the node's determinant store, only rank 0 restored, $(mw_result "mwmaster-$mode") in $((SECONDS - t0)) s, bit-exact"
done

# The replacement of rank 3 dies in its replay, at the first send it skips
# (FTBCKPT_FAULT=replay:3, once): the survivors repair again (a second
# recovery, its own corr) and, their logs still holding the epoch, recover
# locally again: the second replacement is resent everything and replays it.
t0=$SECONDS
job_id=ULFMREPLAY
node_state "$victim_node" MIGRATION_READY
extra_env=(-x FTBCKPT_LOCAL_ROLLBACK=1 -x FTB_JOB_ID=$job_id -x FTBCKPT_FAULT=replay:3 -x FTBCKPT_FAULT_ONCE=/tmp/fault-replay)
status=$(run_job inreplay "$deadline" "${crash[@]}" --crash-once)
extra_env=()
[[ "$(result inreplay)" == "$clean" ]] ||
  { cat "$work/inreplay.log" >&2; fail "replacement dying in its replay: '$(result inreplay)' (exit $status), not '$clean'"; }
grep -aq 'rank 3 dies here (FTBCKPT_FAULT: while replaying)' "$work/inreplay.log" ||
  { cat "$work/inreplay.log" >&2; fail "replacement dying in its replay: it did not die there"; }
await_events "FTB_RUN_THROUGH .*corr=rt-$job_id-2-r3 .*recovery=local .*step=computing"
# (The first replacement may die before its FTB_RESTART_DONE leaves.)
only_restored "rt-$job_id-2-r3" 3 "replacement dying in its replay"
no_other_restored "rt-$job_id-1-r3" 3 "replacement dying in its replay"
echo "replacement dying in its replay: repaired again, recovered locally again, $(result inreplay) in $((SECONDS - t0)) s, bit-exact"

# Local rollback's fallbacks: a survivor's epoch that cannot be replayed
# sends every rank back to the checkpoint, announced by rank 0 and as the
# FTB_RUN_THROUGH step planned recovery=global, bit-exact.
# local_fallback NAME JOB REFERENCE WHY [STENCIL ARG...]: rank 3 killed at
# iteration 50, replaced in place; RESULT as REFERENCE's, rank 0 saying
# "global rollback: WHY", survivors restoring.
local_fallback() {
  local name=$1 job=$2 reference=$3 why=$4 status
  shift 4
  node_state "$victim_node" MIGRATION_READY
  extra_env=(-x FTBCKPT_LOCAL_ROLLBACK=1 -x FTB_JOB_ID=$job "${fallback_env[@]}")
  status=$(run_job "$name" "$deadline" "${crash[@]}" --crash-once "$@")
  extra_env=()
  [[ "$(result "$name")" == "$reference" ]] ||
    { cat "$work/$name.log" >&2; fail "$name: '$(result "$name")' (exit $status), not '$reference'"; }
  grep -aq "rank 0: global rollback: $why" "$work/$name.log" ||
    { cat "$work/$name.log" >&2; fail "$name: rank 0 did not announce global rollback because $why"; }
  await_events "FTB_RUN_THROUGH .*corr=rt-$job-1-r3 .*recovery=global .*step=planned" \
    "FTB_RESTART_DONE .*corr=rt-$job-1-r3 .*rank=0 "
}
# An uncovered call in the epoch (the stencil's MPI_Reduce at iteration 45).
t0=$SECONDS
fallback_env=()
local_fallback uncovered ULFMUNCOVERED "$clean" 'rank [0-2]: MPI_Reduce on the logged communicator' --reduce-at 45
echo "local rollback, an uncovered call in the epoch: global rollback announced, $(result uncovered) in $((SECONDS - t0)) s, bit-exact"
# A log past its bound: rows of 16386 doubles, two sent per iteration by a
# middle rank, outgrow FTBCKPT_LOG_MB=1 within the epoch.
t0=$SECONDS
wide=(--nx 16384 --ny 4)
extra_env=(-x FTB_JOB_ID=ULFMWIDE)
run_job wide "$deadline" "${wide[@]}" >/dev/null
extra_env=()
wide_clean=$(result wide)
[[ -n "$wide_clean" ]] || { cat "$work/wide.log" >&2; fail "no RESULT from the wide stencil"; }
fallback_env=(-x FTBCKPT_LOG_MB=1)
local_fallback bound ULFMBOUND "$wide_clean" 'rank [0-2]: the message log outgrew its bound of 1 MiB' "${wide[@]}"
fallback_env=()
echo "local rollback, a log past its bound: global rollback announced, $(result bound) in $((SECONDS - t0)) s, bit-exact"

# Deaths where no signal from outside could be timed to land (FTBCKPT_FAULT,
# fault_injection.h; once, so the replacement runs on). The replacement goes
# to the spare s0 (n3 suspect), rebuilt from its group's parity.
# fault_case NAME JOB FAULT WHERE CORR CKPT ITERATION [STENCIL ARG...]: rank 3
# must say it died WHERE, the RESULT be the clean one, and recovery CORR
# restore checkpoint CKPT (ITERATION), rank 3 rebuilt from parity.
fault_case() {
  local name=$1 job=$2 fault=$3 where=$4 corr=$5 ckpt=$6 iteration=$7 status
  shift 7
  job_id=$job
  node_state "$victim_node" MIGRATION_INACTIVE
  extra_env=(-x FTB_JOB_ID="$job" -x FTBCKPT_FAULT="$fault" -x FTBCKPT_FAULT_ONCE="/tmp/fault-$name")
  status=$(run_job "$name" "$deadline" "$@")
  extra_env=()
  [[ "$(result "$name")" == "$clean" ]] ||
    { cat "$work/$name.log" >&2; fail "$name: '$(result "$name")' (exit $status), not '$clean'"; }
  grep -aq "rank 3 dies here (FTBCKPT_FAULT: $where)" "$work/$name.log" ||
    { cat "$work/$name.log" >&2; fail "$name: rank 3 did not die $where"; }
  await_events "FTB_RUN_THROUGH .*corr=$corr iteration=$iteration .*step=computing" \
    "FTB_RESTART_DONE .*ckpt_id=$ckpt corr=$corr level=L3 .*rank=3 rebuilt=xor"
}

# Rank 3 dies inside checkpoint 1 (iteration 40), its file of it half-written,
# before its group's exchange: the survivors' checkpoint fails on MPI's error
# and they repair at once; every rank restores checkpoint 0 (iteration 20),
# which checkpoint 1's slot did not touch, the replacement from its parity.
t0=$SECONDS
fault_case inckpt ULFMCKPT checkpoint:3:1 "inside a checkpoint" rt-ULFMCKPT-1-r3 0 20
echo "death inside checkpoint 1: run through from checkpoint 0, rank 3 rebuilt on the spare, $(result inckpt) in $((SECONDS - t0)) s, bit-exact"

# Rank 3 dies at iteration 50; its replacement dies in its restore, once all
# agreed on checkpoint 1, before its group sent it a byte: the survivors'
# restore fails on MPI's error and they repair again (a second recovery, its
# own corr); the second replacement restores and the job ends bit-exact.
t0=$SECONDS
fault_case inrestore ULFMRESTORE restore:3 "while restoring" rt-ULFMRESTORE-2-r3 1 40 "${crash[@]}"
grep -aq 'another process died during recovery rt-ULFMRESTORE-1-r3' "$work/inrestore.log" ||
  { cat "$work/inrestore.log" >&2; fail "replacement dying while restoring: the survivors did not repair again"; }
echo "replacement dying while restoring: repaired again, $(result inrestore) in $((SECONDS - t0)) s, bit-exact"

# The backplane tells the runtime first (issue 33, item 2): every rank is in a
# compute phase of up to 60 s without MPI calls (stencil --stall-at) when
# rank 3 is killed from outside (its replacement, in place, restored: it does
# not stall), so no MPI call can fail and tell the survivors. Its last will,
# published by the agent when the process dies, must reach their runtimes,
# which make ftbckpt_interrupted() true: each leaves the phase and repairs.
# Without it they compute the full 60 s and say so ("never interrupted").
# The kill waits for every rank's phase: a survivor still inside
# ftbckpt_loop would hear the will there and be repaired without one.
t0=$SECONDS
extra_env=(-x FTB_JOB_ID=ULFMSTALL)
run_job stall "$deadline" --stall-at 50 --stall-ms 60000 >"$work/stall.status" &
job_runner=$!
await_compute_phases "$work/stall.log" "$ranks"
victim=$(pids_of_ranks ULFMSTALL 3)
[[ -n "$victim" ]] || { cat "$work/stall.log" >&2; fail "compute phase: rank 3 not found in its compute phase"; }
kill -KILL $victim
wait "$job_runner" || true
extra_env=()
status=$(cat "$work/stall.status")
stalled=$(result stall)
[[ -n "$stalled" ]] || { cat "$work/stall.log" >&2; fail "compute phase: no RESULT after the kill (exit $status)"; }
! grep -aq 'never interrupted' "$work/stall.log" ||
  { cat "$work/stall.log" >&2; fail "compute phase: a survivor was not interrupted by its peer's death"; }
for r in $(seq 0 $((ranks - 2))); do
  grep -aq "rank $r left its compute phase at iteration 50: interrupted" "$work/stall.log" &&
    grep -aq "rank $r noticed a failure (a death the backplane announced)" "$work/stall.log" ||
    { cat "$work/stall.log" >&2; fail "compute phase: rank $r did not leave it on the backplane's notice"; }
done
[[ "$stalled" == "$clean" ]] || { cat "$work/stall.log" >&2; fail "compute phase: '$stalled', not '$clean'"; }
for _ in $(seq 1 300); do
  grep -aq 'FTB_RUN_THROUGH .*by=backplane .*corr=rt-ULFMSTALL-.*step=detected' "$work/events.log" && break
  sleep 0.1
done
grep -aq 'FTB_RUN_THROUGH .*by=backplane .*corr=rt-ULFMSTALL-.*step=detected' "$work/events.log" ||
  { cat "$work/events.log" >&2; fail "compute phase: no FTB_RUN_THROUGH step=detected by=backplane within 30 s"; }
echo "compute phase: every survivor left it on the dead rank's last will; run through, $stalled in $((SECONDS - t0)) s"

# Two ranks die at once (ranks 2 and 3, in place: their nodes not suspect):
# one repair replaces both, spawned together on their host as one app of two
# (replacement_placement.h, spawnApps: two apps made Open MPI 5.0.7's mpirun
# crash in PMIx's setup_fork). Every rank is in a compute phase without MPI
# calls (stencil --stall-at); both are stopped, then killed, so neither can
# join a repair of the other's death. With FTBCKPT_LOCAL_ROLLBACK=1 (whose
# survivors keep computing through their phase, 10 s, and repair at their
# next exchange), local rollback's fallback for more than one lost rank:
# global rollback, announced.
t0=$SECONDS
job_id=ULFMTWO
node_state n2 MIGRATION_READY
node_state n3 MIGRATION_READY
extra_env=(-x FTB_JOB_ID=$job_id -x FTBCKPT_LOCAL_ROLLBACK=1)
run_job twodead "$deadline" --stall-at 50 --stall-ms 10000 >"$work/twodead.status" &
job_runner=$!
await_compute_phases "$work/twodead.log" "$ranks"
victims=$(pids_of_ranks "$job_id" 2 3)
(($(wc -w <<<"$victims") == 2)) || { cat "$work/twodead.log" >&2; fail "two dead: ranks 2 and 3 not found in their compute phase ($victims)"; }
kill -STOP $victims
kill -KILL $victims
wait "$job_runner" || true
extra_env=()
status=$(cat "$work/twodead.status")
two=$(result twodead)
[[ "$two" == "$clean" ]] || { cat "$work/twodead.log" >&2; fail "two dead: '$two' (exit $status), not '$clean'"; }
grep -aq 'rank 0: global rollback: 2 ranks lost at once' "$work/twodead.log" ||
  { cat "$work/twodead.log" >&2; fail "two dead: rank 0 did not announce global rollback for two lost ranks"; }
await_events "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r2.3 .*nodes=n2,n3 .*step=spawned" \
  "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r2.3 .*recovery=global .*step=planned" \
  "FTB_RUN_THROUGH .*corr=rt-$job_id-1-r2.3 .*recovery=global .*step=computing" \
  "FTB_RESTART_DONE .*corr=rt-$job_id-1-r2.3 level=L1 .*rank=2 rebuilt=none" \
  "FTB_RESTART_DONE .*corr=rt-$job_id-1-r2.3 level=L1 .*rank=3 rebuilt=none"
echo "two dead at once: one repair, both replaced in place, global rollback announced, $two in $((SECONDS - t0)) s, bit-exact"

# Across nodes (issue 33, item 3): network namespaces n1-n3 (netns_switch.sh),
# each a node with its own address, hostname and /dev/shm, mpirun in the head
# reaching them through lab_rsh.sh; ranks 0-1 on n1, 2-3 on n2, n3 the spare
# in the allocation (FTBCKPT_SPARE_NODES). Both ranks of n2 die, stopped then
# killed in a compute phase (as above: one repair sees both gone): its
# machine then runs no rank of the job, where Open MPI 5.0.7 cannot spawn
# (emptiedNodes), so both replacements start on n3 together and rebuild their
# data from their groups' parity over the lab's network (n2's memory is not
# n3's). No agent here: the survivors learn it from MPI once their phase ends.
t0=$SECONDS
lab_tag=fu$$ lab_net=10.252.7 lab_nodes=(n1 n2 n3)
lab_up=1
lab_hosts=("$lab_tag-head=$lab_net.1/24") lab_names=("$lab_net.1 head")
for i in "${!lab_nodes[@]}"; do
  lab_hosts+=("$lab_tag-${lab_nodes[$i]}=$lab_net.$((11 + i))/24")
  lab_names+=("$lab_net.$((11 + i)) ${lab_nodes[$i]}")
done
bash "$netns_switch" up "${lab_hosts[@]}" || fail "could not build the lab's network namespaces"
printf '%s\n' "${lab_names[@]}" >>"$root/etc/hosts"
printf '%s slots=2\n' "${lab_nodes[@]}" >"$root/src/lab-hosts"
cp "$here/lab_rsh.sh" "$root/src/"
done_file=$work/lab.log
export FTB_ROOT_NETNS=$lab_tag-head
(status=0 && in_root "$deadline" /usr/bin/env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FTB_LAB_TAG="$lab_tag" \
  mpirun --with-ft ulfm --hostfile /src/lab-hosts --prtemca plm_ssh_agent /src/lab_rsh.sh \
  --prtemca oob_tcp_if_exclude lo --mca btl self,sm,tcp --mca btl_tcp_if_exclude lo \
  --map-by ppr:2:node:OVERSUBSCRIBE -np "$ranks" -x FTBCKPT_AGENT=0 -x FTB_JOB_ID=ULFMLAB -x FTBCKPT_LEVEL=L3 \
  -x FTBCKPT_GROUP_SIZE=2 -x FTBCKPT_SPARE_NODES=n3 -x FTBCKPT_RUN_THROUGH_TRACE=1 \
  /src/out/stencil "${stencil_args[@]}" --stall-at 50 --stall-ms 15000 >"$work/lab.log" 2>&1 || status=$?
  echo "$status" >"$work/lab.status") &
job_runner=$!
await_compute_phases "$work/lab.log" "$ranks"
victims=$(pids_of_ranks ULFMLAB 2 3)
(($(wc -w <<<"$victims") == 2)) || { cat "$work/lab.log" >&2; fail "across nodes: ranks 2 and 3 not found in their compute phase ($victims)"; }
kill -STOP $victims
kill -KILL $victims
wait "$job_runner" || true
status=$(cat "$work/lab.status")
unset FTB_ROOT_NETNS
done_file=""
bash "$netns_switch" down "$lab_tag-head" "${lab_nodes[@]/#/$lab_tag-}"
lab_up=""
[[ "$(result lab)" == "$clean" ]] || { cat "$work/lab.log" >&2; fail "across nodes: '$(result lab)' (exit $status), not '$clean'"; }
grep -aq 'run-through rt-ULFMLAB-1-r2.3 rank 0 step spawned hosts=n3,n3 nodes=n3,n3 ' "$work/lab.log" ||
  { cat "$work/lab.log" >&2; fail "across nodes: ranks 2 and 3 not replaced on the spare n3 in one repair"; }
echo "across nodes: both of n2's ranks lost, replaced on the spare n3 and rebuilt from parity there, $(result lab) in $((SECONDS - t0)) s, bit-exact"

# A node's agent lost while its rank lives: a false alarm (issue 33, item 2).
# Rank 3 is served by a second agent, named n3 like its node, a child of the
# first in the tree; the others by the first. Ranks 0-2 are in a compute phase
# without MPI calls (stencil --stall-at) and rank 3 waits for rank 2 in its
# next exchange when n3's agent is SIGKILLed: the first agent announces
# FTB_NODE_LOST naming rank 3, and the other ranks' runtimes leave the phase
# and repair. Rank 3 lives (unaware: its agent is gone); the revoke ends its
# wait and it joins: the shrink keeps every rank, nobody is spawned
# (step=shrunk false_alarm=1), every rank restores its own L1 copy, bit-exact.
# The repair used to end in an error ("no rank is missing"). Rank 3 may
# reach its exchange after the revoke rather than wait in it: its calls then
# return MPIX_ERR_REVOKED as well. (Not through MPI_Sendrecv, which the
# stencil therefore does not use: Open MPI 5.0.7's segfaults on a revoked
# communicator when its source is MPI_PROC_NULL, as rank 3's was.)
# node_agent NAME: a second agent, named after node NAME, a child of the
# first in the tree, serving ipc:///run/ftb-agent/agent-NAME.sock in the root;
# its pid in $node_agent once it joined the tree.
node_agent() {
  "$src_root/agent/ftb-agent" --name "$1" --ipc-endpoint="ipc://$work/agent/agent-$1.sock" \
    --tcp-endpoint=tcp://127.0.0.1:0 --tree-authentication insecure-none --tree-seeds "$served" \
    >"$work/agent-$1.log" 2>&1 &
  node_agent=$!
  node_agents="$node_agents $node_agent"
  for _ in $(seq 1 300); do "${ftbctl[@]}" tree 2>/dev/null | grep -qw "$1" && return 0; sleep 0.1; done
  cat "$work/agent-$1.log" >&2
  fail "agent $1 never joined the tree"
}
t0=$SECONDS
node_agent n3
agent_n3=$node_agent
cat >"$work/agent/rank3-on-n3.sh" <<'WRAP'
#!/bin/sh
# The stencil, with rank 3 served by n3's agent.
if [ "${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}" = 3 ]; then FTB_AGENT_ENDPOINT=ipc:///run/ftb-agent/agent-n3.sock; export FTB_AGENT_ENDPOINT; fi
exec /src/out/stencil "$@"
WRAP
chmod +x "$work/agent/rank3-on-n3.sh"
extra_env=(-x FTB_JOB_ID=ULFMNODE)
program=/run/ftb-agent/rank3-on-n3.sh
run_job nodelost "$deadline" --stall-at 50 --stall-ms 60000 --stall-except 3 >"$work/nodelost.status" &
job_runner=$!
# n3's agent goes once ranks 0-2 are in their compute phase and the first
# agent knows rank 3 lives on n3 (its heartbeats name their residents).
for _ in $(seq 1 600); do
  (($(grep -ac 'computes for up to' "$work/nodelost.log" 2>/dev/null) == ranks - 1)) &&
    "${ftbctl[@]}" tree --json 2>/dev/null | grep -q 'ULFMNODE:3' && break
  sleep 0.1
done
"${ftbctl[@]}" tree --json 2>/dev/null | grep -q 'ULFMNODE:3' ||
  { cat "$work/nodelost.log" >&2; fail "node loss: rank 3 never showed as a resident of n3"; }
kill -KILL "$agent_n3"
wait "$job_runner" || true
program=/src/out/stencil
extra_env=()
status=$(cat "$work/nodelost.status")
lost_run=$(result nodelost)
[[ "$lost_run" == "$clean" ]] ||
  { cat "$work/nodelost.log" >&2; fail "node loss false alarm: '$lost_run' (exit $status), not '$clean'"; }
for r in $(seq 0 $((ranks - 2))); do
  grep -aq "rank $r left its compute phase at iteration 50: interrupted" "$work/nodelost.log" ||
    { cat "$work/nodelost.log" >&2; fail "node loss: rank $r did not leave its compute phase on FTB_NODE_LOST"; }
done
for _ in $(seq 1 300); do
  grep -aq 'FTB_RUN_THROUGH .*corr=rt-ULFMNODE-.*false_alarm=1 .*step=shrunk' "$work/events.log" &&
    grep -aq 'FTB_RUN_THROUGH .*corr=rt-ULFMNODE-.*step=computing' "$work/events.log" && break
  sleep 0.1
done
grep -aq 'FTB_RUN_THROUGH .*corr=rt-ULFMNODE-.*false_alarm=1 .*step=shrunk' "$work/events.log" &&
  grep -aq 'FTB_RUN_THROUGH .*corr=rt-ULFMNODE-.*step=computing' "$work/events.log" ||
  { cat "$work/events.log" >&2; fail "node loss: no false-alarm repair told (step=shrunk false_alarm=1, then computing)"; }
echo "node loss false alarm: n3's agent lost, rank 3 alive; the others left their compute phase on FTB_NODE_LOST, nobody spawned, $lost_run in $((SECONDS - t0)) s, bit-exact"

# The same job under ftb-run --run-through (its mpirun enters the root:
# mpirun_in_root.sh). ftb-run hands the runtime its spare s0, but n3 is not
# suspect, so the replacement runs where rank 3 ran; the "nodes" keep their /dev/shm across mpiruns
# ($work/shm, as a real node's memory outlives a relaunch). ftb-run's output
# (with mpirun's) in $work/$1.log; prints ftb-run's exit code.
ftb_run_job() {
  local job=$1 status=0
  shift
  rm -rf "$work/shm" "$work/state"
  mkdir -p "$work/shm"
  local env_args=()
  for e in "${ftb_rank_env[@]}" FTBCKPT_LEVEL=L3 FTBCKPT_RUN_THROUGH_TRACE=1; do
    env_args+=("--mpirun-arg=-x" "--mpirun-arg=$e")
  done
  FTB_ULFM_ROOT=$root FTB_ULFM_PIDS=$work/mpirun.pids FTB_ROOT_SHM=$work/shm \
    timeout -s KILL "$deadline" "$src_root/components/launcher_bridge/ftb-run" --agent "ipc://$ftb_agent_socket" \
    --job "$job" "${ftb_nodes[@]}" --slurm off --state-dir "$work/state" \
    --mpirun "$here/mpirun_in_root.sh" --run-through --finalize-grace-ms 3000 "${env_args[@]}" "$@" \
    -- "$ftb_program" "${stencil_args[@]}" "${ftb_crash[@]}" --crash-once "${stencil_extra[@]}" >"$work/$job.log" 2>&1 ||
    status=$?
  # Whatever ftb-run left running (it ends its job itself; a KILLed one cannot).
  if [[ -s "$work/mpirun.pids" ]]; then
    while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$work/mpirun.pids"
    rm -f "$work/mpirun.pids"
  fi
  echo "$status"
}
# ftb_run_job's settings; a case that changes some calls this after it.
ftb_run_defaults() {
  ftb_crash=("${crash[@]}")  # how a rank dies (once)
  stencil_extra=()  # more stencil options (a later one wins)
  ftb_nodes=(--nodes n0,n1,n2,n3 --spares s0)  # one rank each, and the spare
  ftb_agent_socket=$work/agent/agent.sock  # the agent ftb-run talks to
  ftb_rank_env=(FTB_AGENT_ENDPOINT="$endpoint" FTBCKPT_GROUP_SIZE=4)  # exported to the ranks
  ftb_program=/src/out/stencil
  events_log=$work/events.log  # what the watches recorded
  launcher_log=$work/launcher.log
}
ftb_run_defaults
# await_event JOB PATTERN [SPACE]: the watch recorded an event of JOB's
# launcher (in FTB.SPACE.JOB: JL, or NLA for its node states) matching
# PATTERN within 30 s.
await_event() {
  local space=FTB.${3:-JL}.$1
  for _ in $(seq 1 300); do
    grep -a "$space" "$launcher_log" | grep -aq -- "$2" && return 0
    sleep 0.1
  done
  cat "$launcher_log" "$work/$1.log" >&2
  fail "no $space event matching '$2' within 30 s"
}
"${ftbctl[@]}" watch --client-name ulfm-launcher-watch --filter 'event_space=FTB.JL.*|FTB.NLA.*' >"$work/launcher.log" 2>&1 &
watch_pid="$watch_pid $!"
for _ in $(seq 1 300); do
  "${ftbctl[@]}" clients 2>/dev/null | grep -q ulfm-launcher-watch && break
  sleep 0.1
done

# 1. The run goes through the death: one mpirun, the replacement restored,
#    ftb-run's decision and "running again" under the runtime's correlation id.
t0=$SECONDS
status=$(ftb_run_job RTRUN)
((status == 0)) || { cat "$work/RTRUN.log" >&2; fail "ftb-run --run-through exited $status"; }
[[ "$(result RTRUN)" == "$clean" ]] ||
  { cat "$work/RTRUN.log" >&2; fail "ftb-run --run-through: '$(result RTRUN)', not the failure-free '$clean'"; }
grep -aq "relaunch" "$work/RTRUN.log" && { cat "$work/RTRUN.log" >&2; fail "ftb-run relaunched a job that ran through"; }
corr=$(grep -ao 'run-through rt-[^ ]* rank 0 step computing' "$work/RTRUN.log" | awk '{print $2}')
[[ -n "$corr" ]] || { cat "$work/RTRUN.log" >&2; fail "no run-through step computing under ftb-run"; }
# The killed rank's last will went out (the agent watches the ranks' processes).
for _ in $(seq 1 300); do grep -aq "FTB_MPI_PROCS_DEAD .*job=RTRUN .*rank=3" "$work/events.log" && break; sleep 0.1; done
grep -aq "FTB_MPI_PROCS_DEAD .*job=RTRUN .*rank=3" "$work/events.log" ||
  { cat "$work/events.log" >&2; fail "no last will of the killed rank 3 within 30 s"; }
await_event RTRUN "FTB_DECISION .*action=run-through .*corr=$corr"
await_event RTRUN "FTB_JOB_STATE .*corr=$corr .*state=running"
await_event RTRUN "FTB_FAILURES .*corr=$corr .*failures=process:1,node:0"
echo "ftb-run --run-through: $(result RTRUN) in $((SECONDS - t0)) s, bit-exact, one mpirun, decision and running again under $corr"

# 2. No `computing` within the deadline (20 ms: a spawn alone takes longer):
#    ftb-run ends the repair and relaunches in place; the relaunch restores
#    from the nodes' memory and ends bit-exact.
t0=$SECONDS
status=$(ftb_run_job RTLATE --run-through-deadline-ms 20)
((status == 0)) || { cat "$work/RTLATE.log" >&2; fail "ftb-run --run-through-deadline-ms 20 exited $status"; }
[[ "$(result RTLATE)" == "$clean" ]] ||
  { cat "$work/RTLATE.log" >&2; fail "after the fallback: '$(result RTLATE)', not the failure-free '$clean'"; }
grep -aq "the relaunch path takes over" "$work/RTLATE.log" ||
  { cat "$work/RTLATE.log" >&2; fail "ftb-run did not give up the run-through at its deadline"; }
await_event RTLATE "FTB_DECISION .*action=restart"
await_event RTLATE "FTB_JOB_RELAUNCH .*state=relaunched"
echo "ftb-run --run-through-deadline-ms 20: relaunched in place, $(result RTLATE) in $((SECONDS - t0)) s, bit-exact"

# 3. A second failure during the repair: rank 2 is SIGKILLed as soon as rank 0
#    reports the first death detected (the spawn takes ~0.2 s more). However
#    the runtime fares (the repair fails and the run ends, it hangs until the
#    deadline, or it runs through both), ftb-run must end the job bit-exact.
kill_rank_on_detection() {  # JOB RANK
  local job=$1 rank=$2 pid
  for _ in $(seq 1 6000); do
    grep -aq "run-through rt-$job-1-r3 rank 0 step detected" "$work/$job.log" 2>/dev/null && break
    sleep 0.01
  done
  for pid in $(pids_of_ranks "$job" "$rank"); do
    kill -KILL "$pid" && echo "killed rank $rank (pid $pid) during the repair"
  done
}
t0=$SECONDS
# 20 ms per iteration (the answer is the same): the killer, polling rank 0's
# output, finds rank 2 still running on a loaded machine too.
stencil_extra=(--iteration-ms 20)
kill_rank_on_detection RTTWICE 2 >"$work/second-kill.log" 2>&1 &
killer=$!
status=$(ftb_run_job RTTWICE --run-through-deadline-ms 5000)
ftb_run_defaults
wait "$killer" || true
grep -q "killed rank 2" "$work/second-kill.log" ||
  { cat "$work/second-kill.log" "$work/RTTWICE.log" >&2; fail "rank 2 was not found to kill during the repair"; }
((status == 0)) || { cat "$work/RTTWICE.log" >&2; fail "ftb-run exited $status after a second failure during the repair"; }
[[ "$(result RTTWICE)" == "$clean" ]] ||
  { cat "$work/RTTWICE.log" >&2; fail "after a second failure: '$(result RTTWICE)', not the failure-free '$clean'"; }
how="ran through both"
grep -aq "the relaunch path takes over" "$work/RTTWICE.log" && how="relaunched: $(grep -ao 'run-through [^:]*: [^;]*; the relaunch path takes over' "$work/RTTWICE.log" | head -1)"
echo "second failure during the repair: $how; $(result RTTWICE) in $((SECONDS - t0)) s, bit-exact"

# 4. A hung rank: busy for good in its own code (stencil --hang-at), no crash.
#    Its runtime's watchdog announces FTB_MPI_RANK_HUNG, ftb-run's `replace`
#    rule ends it (FTB_TERMINATE_RANK, obeyed by the rank's SDK thread), and the
#    survivors run through its death: one mpirun, bit-exact.
t0=$SECONDS
ftb_crash=()
stencil_extra=("${hang[@]}")
status=$(ftb_run_job RTHANG)
ftb_run_defaults
((status == 0)) || { cat "$work/RTHANG.log" >&2; fail "ftb-run exited $status after a hung rank"; }
[[ "$(result RTHANG)" == "$clean" ]] ||
  { cat "$work/RTHANG.log" >&2; fail "after a hung rank: '$(result RTHANG)', not the failure-free '$clean'"; }
grep -aq "stencil: rank $hang_rank hangs at iteration" "$work/RTHANG.log" ||
  { cat "$work/RTHANG.log" >&2; fail "rank $hang_rank never hung"; }
grep -aq "FTB_MPI_RANK_HUNG .*job=RTHANG .*rank=$hang_rank .*where=application" "$work/events.log" ||
  { cat "$work/events.log" >&2; fail "no FTB_MPI_RANK_HUNG of rank $hang_rank in its own code"; }
await_event RTHANG "FTB_DECISION .*action=replace .*ranks=$hang_rank"
await_event RTHANG "FTB_TERMINATE_RANK .*rank=$hang_rank"
grep -aq "run-through rt-[^ ]* rank 0 step computing" "$work/RTHANG.log" ||
  { cat "$work/RTHANG.log" >&2; fail "the hung rank's death was not run through"; }
grep -aq "relaunch" "$work/RTHANG.log" && { cat "$work/RTHANG.log" >&2; fail "ftb-run relaunched instead of running through"; }
hung_line=$(grep -a -m1 "FTB_MPI_RANK_HUNG .*job=RTHANG" "$work/events.log")
echo "hung rank: announced ($(grep -o 'stalled_ms=[0-9]*' <<<"$hung_line"), $(grep -o 'bound_ms=[0-9]*' <<<"$hung_line")), replaced, run through; $(result RTHANG) in $((SECONDS - t0)) s, bit-exact"

# 5. A suspect node told by ftb-run (issue 33, item 3), and a dead spare: two
#    ranks per node (n0, n1) and ftb-run's spares s0 and s1. Every rank in a
#    compute phase (stencil --stall-at), s0's agent (named s0, a child in the
#    tree) is SIGKILLed: FTB_NODE_LOST, and ftb-run retires the spare
#    (MIGRATION_INACTIVE), which the runtime then passes over. A rule drains
#    n1 on FTB_IB_PORT_DEGRADED: ftb-run tells it MIGRATION_INACTIVE while
#    n1's ranks compute on. Rank 3 (on n1) is then killed: its replacement
#    goes to the live spare s1, rebuilt from its group's parity there, and
#    ftb-run's table follows the split: s1 READY under the runtime's corr, n1
#    keeping rank 2 (what a relaunch or an adopting ftb-run starts from).
#    Bit-exact, one mpirun.
t0=$SECONDS
job_id=RTSUSPECT
corr=rt-$job_id-1-r3
# (The embedded rules but `replace`: a compute phase of seconds looks hung to
# the ranks' watchdog, and ended it would be.)
{
  echo "event_space=FTB.IB.*, event_name=FTB_IB_PORT_DEGRADED -> drain"
  "$src_root/components/launcher_bridge/ftb-run" --print-rules | grep -v -- '-> replace$'
} >"$work/drain.rules"
ftb_crash=()
stencil_extra=(--stall-at 50 --stall-ms 60000)
ftb_nodes=(--nodes n0,n1 --ranks-per-node 2 --spares s0,s1)
node_agent s0
ftb_run_job "$job_id" --rules "$work/drain.rules" >"$work/$job_id.status" &
job_runner=$!
await_compute_phases "$work/$job_id.log" "$ranks"
kill -KILL "$node_agent"
await_event "$job_id" "FTB_DECISION .*action=drain .*node=s0 .*trigger=FTB_NODE_LOST"
await_event "$job_id" "FTB_NLA_STATE .*host=s0 .*state=MIGRATION_INACTIVE" NLA
"${ftbctl[@]}" publish --space FTB.IB.MONITOR --name FTB_IB_PORT_DEGRADED --severity warning \
  --payload "n1 port 1 degraded" --tag host=n1 >/dev/null || fail "ftbctl publish FTB_IB_PORT_DEGRADED failed"
await_event "$job_id" "FTB_DECISION .*action=drain .*node=n1"
await_event "$job_id" "FTB_NLA_STATE .*host=n1 .*state=MIGRATION_INACTIVE" NLA
victim=$(pids_of_ranks "$job_id" 3)
[[ -n "$victim" ]] || { cat "$work/$job_id.log" >&2; fail "suspect node: rank 3 not found in its compute phase"; }
kill -KILL $victim
wait "$job_runner" || true
ftb_run_defaults
status=$(cat "$work/$job_id.status")
((status == 0)) || { cat "$work/$job_id.log" >&2; fail "suspect node: ftb-run exited $status"; }
[[ "$(result "$job_id")" == "$clean" ]] ||
  { cat "$work/$job_id.log" >&2; fail "suspect node: '$(result "$job_id")', not the failure-free '$clean'"; }
grep -aq "relaunch" "$work/$job_id.log" && { cat "$work/$job_id.log" >&2; fail "suspect node: ftb-run relaunched"; }
await_events "FTB_RUN_THROUGH .*corr=$corr .*nodes=s1 .*step=spawned" \
  "FTB_RESTART_DONE .*corr=$corr level=L3 .*rank=3 rebuilt=xor"
await_event "$job_id" "FTB_NLA_STATE .*corr=$corr .*host=s1 .*state=MIGRATION_READY" NLA
table="n0 MIGRATION_READY 0,1; n1 MIGRATION_INACTIVE 2; s0 MIGRATION_INACTIVE -; s1 MIGRATION_READY 3"
grep -aq "run-through $corr: rank(s) 3 spawned on s1; the node table now: $table" "$work/$job_id.log" ||
  { cat "$work/$job_id.log" >&2; fail "suspect node: ftb-run's table is not '$table'"; }
echo "suspect node and dead spare: s0's agent lost and s0 retired, n1 drained by ftb-run's rule; rank 3 replaced on the live spare s1 and rebuilt from parity, the table split (n1: 2, s1: 3); $(result "$job_id") in $((SECONDS - t0)) s, bit-exact"

# 6. Across the lab's nodes under ftb-run, an agent on every node (issue 33,
#    item 3): the network namespaces of "across nodes" again, an ftb-agent in
#    each (named after its node; n1-n3 children of the head's in one tree),
#    every rank a local client of its own node's agent. ftb-run (on the host,
#    talking to the head's agent) runs ranks 0-1 on n1 and 2-3 on n2, n3 its
#    spare; its mpirun enters the head's namespace and the root
#    (mpirun_in_root.sh, FTB_LAB_TAG) and reaches the nodes through
#    lab_rsh.sh. Both of n2's ranks are stopped, then killed, in a compute
#    phase: n2's agent publishes their last wills, which interrupt the
#    survivors' phase (the backplane tells the runtime first); ftb-run holds
#    for the run-through; the runtime replaces both on n3 (n2 runs no rank
#    any more), rebuilt from their groups' parity over the lab's network; and
#    ftb-run's table hands n2's block to n3. Bit-exact, one mpirun.
t0=$SECONDS
job_id=LABRUN
corr=rt-$job_id-1-r2.3
bash "$netns_switch" up "${lab_hosts[@]}" || fail "could not build the lab's network namespaces again"
lab_up=1
cp "$here/lab_rsh.sh" "$root/src/"
ip netns exec "$lab_tag-head" "$src_root/agent/ftb-agent" --name head --ipc-endpoint="ipc://$work/agent/agent-head.sock" \
  --tcp-endpoint="tcp://$lab_net.1:7820" --tree-authentication insecure-none >"$work/agent-head.log" 2>&1 &
node_agents="$node_agents $!"
# The nodes' agents seed from the head's once it serves (the tree's root is
# then the head's: the oldest).
for _ in $(seq 1 300); do grep -q "'head' serving" "$work/agent-head.log" && break; sleep 0.1; done
for i in "${!lab_nodes[@]}"; do
  ip netns exec "$lab_tag-${lab_nodes[$i]}" "$src_root/agent/ftb-agent" --name "${lab_nodes[$i]}" \
    --ipc-endpoint="ipc://$work/agent/agent-${lab_nodes[$i]}.sock" --tcp-endpoint="tcp://$lab_net.$((11 + i)):7820" \
    --tree-authentication insecure-none --tree-seeds "tcp://$lab_net.1:7820" >"$work/agent-${lab_nodes[$i]}.log" 2>&1 &
  node_agents="$node_agents $!"
done
# (ftbctl tree asks every agent at its address: from the head's namespace.)
lab_ftbctl=(ip netns exec "$lab_tag-head" "$src_root/cli/ftbctl" --agent "ipc://$work/agent/agent-head.sock")
for _ in $(seq 1 300); do
  (($("${lab_ftbctl[@]}" tree 2>/dev/null | grep -cE '^ *n[123] .* ok ') == 3)) && break
  sleep 0.1
done
(($("${lab_ftbctl[@]}" tree 2>/dev/null | grep -cE '^ *n[123] .* ok ') == 3)) ||
  { cat "$work"/agent-head.log >&2; fail "lab under ftb-run: the nodes' agents never joined the head's tree"; }
"${lab_ftbctl[@]}" watch --client-name lab-watch --filter 'event_space=FTB.JL.*|FTB.NLA.*|FTB.MPI.*' \
  >"$work/lab-events.log" 2>&1 &
watch_pid="$watch_pid $!"
for _ in $(seq 1 300); do "${lab_ftbctl[@]}" clients 2>/dev/null | grep -q lab-watch && break; sleep 0.1; done
cat >"$work/agent/rank-on-its-node.sh" <<'WRAP'
#!/bin/sh
# The stencil, served by its node's agent (lab_rsh.sh named the node).
FTB_AGENT_ENDPOINT=ipc:///run/ftb-agent/agent-$(hostname).sock
export FTB_AGENT_ENDPOINT
exec /src/out/stencil "$@"
WRAP
chmod +x "$work/agent/rank-on-its-node.sh"
ftb_crash=()
stencil_extra=(--stall-at 50 --stall-ms 60000)
ftb_nodes=(--nodes n1,n2 --ranks-per-node 2 --spares n3)
ftb_agent_socket=$work/agent/agent-head.sock
ftb_rank_env=(FTBCKPT_GROUP_SIZE=2)
ftb_program=/run/ftb-agent/rank-on-its-node.sh
events_log=$work/lab-events.log
launcher_log=$work/lab-events.log
FTB_ROOT_NETNS=$lab_tag-head FTB_LAB_TAG=$lab_tag ftb_run_job "$job_id" --rules "$work/drain.rules" \
  >"$work/$job_id.status" &
job_runner=$!
await_compute_phases "$work/$job_id.log" "$ranks"
victims=$(pids_of_ranks "$job_id" 2 3)
(($(wc -w <<<"$victims") == 2)) ||
  { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: ranks 2 and 3 not found in their compute phase ($victims)"; }
kill -STOP $victims
kill -KILL $victims
wait "$job_runner" || true
status=$(cat "$work/$job_id.status")
((status == 0)) || { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: ftb-run exited $status"; }
[[ "$(result "$job_id")" == "$clean" ]] ||
  { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: '$(result "$job_id")', not the failure-free '$clean'"; }
grep -aq "relaunch" "$work/$job_id.log" && { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: ftb-run relaunched"; }
for r in 0 1; do
  grep -aq "rank $r noticed a failure (a death the backplane announced)" "$work/$job_id.log" ||
    { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: rank $r did not hear the deaths from the backplane"; }
done
grep -aq "run-through $corr rank 0 step spawned hosts=n3,n3 nodes=n3,n3 " "$work/$job_id.log" ||
  { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: ranks 2 and 3 not replaced on the spare n3 in one repair"; }
await_events "FTB_MPI_PROCS_DEAD .*job=$job_id .*rank=2" "FTB_MPI_PROCS_DEAD .*job=$job_id .*rank=3" \
  "FTB_RESTART_DONE .*corr=$corr level=L3 .*rank=2 rebuilt=xor" "FTB_RESTART_DONE .*corr=$corr level=L3 .*rank=3 rebuilt=xor"
await_event "$job_id" "FTB_DECISION .*action=run-through .*corr=$corr"
await_event "$job_id" "FTB_NLA_STATE .*corr=$corr .*host=n3 .*state=MIGRATION_READY" NLA
table="n1 MIGRATION_READY 0,1; n2 MIGRATION_INACTIVE -; n3 MIGRATION_READY 2,3"
grep -aq "run-through $corr: rank(s) 2,3 spawned on n3,n3; the node table now: $table" "$work/$job_id.log" ||
  { cat "$work/$job_id.log" >&2; fail "lab under ftb-run: ftb-run's table is not '$table'"; }
ftb_run_defaults
bash "$netns_switch" down "$lab_tag-head" "${lab_nodes[@]/#/$lab_tag-}"
lab_up=""
echo "lab under ftb-run, an agent per node: n2's ranks lost, their wills heard by the survivors, replaced on ftb-run's spare n3 and rebuilt from parity there, the table following; $(result "$job_id") in $((SECONDS - t0)) s, bit-exact"
