# Sourced by run_through_test.sh --bench (issue 34's aims): local rollback
# against global rollback, in the same run, on 8 ranks x 64 MiB. The stencil
# checkpoints every 120 iterations (5-6 s here) and rank 7 SIGKILLs itself
# at iteration 180, halfway to the next; its replacement lands in place (its L1 copy and its
# determinants in node memory). With FTBCKPT_LOCAL_ROLLBACK=1 only it
# re-executes; without, every rank restores and repeats iterations 120-179.
# From the stencil's --trace lines (each sweep's CPU time and end), per round:
# - re-executed: the CPU seconds of every sweep a rank index had already done
#   (or started and abandoned), summed over the job;
# - back: from the kill until every rank has finished again the newest
#   iteration any rank had finished before it (a survivor that keeps its work
#   is back at the kill).
# Both runs must end bit-exact against a failure-free run; the local rounds
# must have been recovered locally (a fallback is not a local figure).
# Then the collective log against its point-to-point expression
# (collective_expression.h), summed over the ranks, for the stencil and for
# master_worker (an allreduce and a broadcast every round).
# Uses run_job, result, node_state and fail from run_through_test.sh.

local_vs_global_bench() {
  local rounds=$1 kind round status clean_lr line
  local saved_args=("${stencil_args[@]}")
  stencil_args=(--nx 2048 --ny 4096 --iterations 240 --checkpoint-every 120 --trace)
  local kill_args=(--crash-at 180 --crash-node n7 --crash-once)
  extra_env=(-x FTB_JOB_ID=LR-clean -x FTBCKPT_LOCAL_ROLLBACK=1)
  status=$(run_job lr-clean "$deadline")
  clean_lr=$(result lr-clean)
  [[ -n "$clean_lr" ]] || { cat "$work/lr-clean.log" >&2; fail "the failure-free local-rollback run printed no RESULT (exit $status)"; }
  : >"$work/lr-figures.log"
  for round in $(seq 1 "$rounds"); do
    for kind in local global; do
      job_id=LR-$kind-$round
      extra_env=(-x FTB_JOB_ID="$job_id")
      [[ "$kind" == local ]] && extra_env+=(-x FTBCKPT_LOCAL_ROLLBACK=1)
      node_state n7 MIGRATION_READY  # in place: both kinds restore from node memory
      status=$(run_job "lr-$kind" "$deadline" "${kill_args[@]}")
      [[ "$(result "lr-$kind")" == "$clean_lr" ]] ||
        { cat "$work/lr-$kind.log" >&2; fail "$kind rollback round $round: '$(result "lr-$kind")', failure-free '$clean_lr' (exit $status)"; }
      if [[ "$kind" == local ]]; then
        grep -aq 'ftbckpt: rank 0: local rollback of rank 7 ' "$work/lr-local.log" ||
          { cat "$work/lr-local.log" >&2; fail "local rollback round $round was not recovered locally"; }
      fi
      line=$(awk -v kind="$kind" '
        function field(name,   i) {for (i = 1; i < NF; i++) if ($i == name) return $(i + 1); return ""}
        /kills itself at iteration/ {kill = field("time") + 0}
        / iteration [0-9]+ (done|abandoned) cpu_us / {
          n++; r[n] = field("rank"); it[n] = field("iteration") + 0; done[n] = ($6 == "done")
          cpu[n] = field("cpu_us") + 0; t[n] = field("time") + 0}
        END {
          if (kill == 0 || n == 0) {print "no kill or no --trace lines"; exit 1}
          reached = -1
          for (i = 1; i <= n; i++) if (done[i] && t[i] < kill && it[i] > reached) reached = it[i]
          for (i = 1; i <= n; i++) {
            key = r[i] SUBSEP it[i]; total += cpu[i]
            if (done[i] && (!(key in first_t) || t[i] < first_t[key])) {first_t[key] = t[i]; first_cpu[key] = cpu[i]}
            if (done[i] && it[i] == reached && t[i] > last[r[i]]) last[r[i]] = t[i]
          }
          for (key in first_cpu) kept += first_cpu[key]
          for (i = 1; i <= n; i++) {
            key = r[i] SUBSEP it[i]
            if (!done[i] || t[i] != first_t[key]) {sweeps++; ranks_again[r[i]] = 1}
          }
          back = 0
          for (rank in last) if (last[rank] - kill > back) back = last[rank] - kill
          printf "%s re_executed_cpu_s=%.3f sweeps_again=%d ranks_again=%d reached=%d back_s=%.3f\n",
            kind, (total - kept) / 1e6, sweeps, length(ranks_again), reached, back}' "$work/lr-$kind.log") ||
        { cat "$work/lr-$kind.log" >&2; fail "$kind rollback round $round: $line"; }
      echo "BENCH $kind rollback $round/$rounds (8 ranks x 64 MiB, checkpoints every 120 iterations, rank 7 killed at 180): ${line#* }"
      echo "$line" >>"$work/lr-figures.log"
    done
  done
  grep -a 'message log peak' "$work/lr-local.log" | sort -t' ' -k7 -g | tail -1 | sed 's/^/BENCH the largest log of the last local round: /'
  awk 'function field(name,   i) {for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)}
    function median(list,   n, v, i, j, x) {
      n = split(list, v, " ")
      for (i = 2; i <= n; i++) {x = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > x + 0; j--) v[j + 1] = v[j]; v[j + 1] = x}
      return v[int((n + 1) / 2)]}
    {cpu[$1] = cpu[$1] " " field("re_executed_cpu_s"); back[$1] = back[$1] " " field("back_s"); n[$1]++}
    END {lc = median(cpu["local"]); gc = median(cpu["global"]); lb = median(back["local"]); gb = median(back["global"])
      printf "BENCH local against global rollback, median of %d: CPU re-executed %.3f s against %.3f s = %.2f (aim <= 0.17); " \
        "kill -> back at the iteration reached %.3f s against %.3f s = %.2f (aim <= 0.5)\n",
        n["local"], lc, gc, (gc > 0 ? lc / gc : 0), lb, gb, (gb > 0 ? lb / gb : 0)}' "$work/lr-figures.log"
  collective_figures "$work/lr-clean.log" "the stencil, failure-free"
  program=/src/out/master_worker
  stencil_args=(--items 600 --checkpoint-every 10)
  extra_env=(-x FTB_JOB_ID=LR-mw -x FTBCKPT_LOCAL_ROLLBACK=1)
  status=$(run_job lr-mw "$deadline")
  grep -aq '^RESULT items=' "$work/lr-mw.log" || { cat "$work/lr-mw.log" >&2; fail "master_worker printed no RESULT (exit $status)"; }
  collective_figures "$work/lr-mw.log" "master_worker (600 items), failure-free"
  program=/src/out/stencil
  stencil_args=("${saved_args[@]}")
  extra_env=()
}

collective_figures() {  # LOG WHAT: the ranks' "collectives logged" lines, summed
  awk -v what="$2" '/ collectives logged / {
      ranks++
      for (i = 1; i < NF; i++) {if ($i == "logged") calls = $(i + 1) + 0; if ($i == "results") kept += $(i + 1)
        if ($i == "messages") p2p += $(i + 1)}}
    END {if (!ranks) {print "BENCH collective log, " what ": no figures printed"; exit}
      printf "BENCH collective log, %s, %d ranks, %d collectives each: results kept %d bytes, as point-to-point messages %d bytes: %.0f %% smaller (aim >= 75 %%)\n",
        what, ranks, calls, kept, p2p, (p2p > 0 ? 100 * (1 - kept / p2p) : 0)}' "$1"
}
