# Sourced by tests/run-all.sh and tests/stress.sh: reads what `bazel test`
# printed (with --test_summary=short) into one result per target.

# target_results LOG: one line "TARGET STATUS" per test target in LOG, STATUS
# one of PASSED, FAILED, TIMEOUT, FLAKY, NO_STATUS, INCOMPLETE.
target_results() {
  grep -oE '^//[^ ]+ +(\(cached\) +)?(PASSED|FAILED|TIMEOUT|FLAKY|NO STATUS|INCOMPLETE)' "$1" |
    sed -E 's/ +\(cached\)//; s/NO STATUS/NO_STATUS/; s/ +/ /'
}

# test_log TESTLOGS TARGET: the path of TARGET's (last) test.log.
test_log() {
  echo "$1/$(echo "${2#//}" | tr ':' '/')/test.log"
}

# skip_reason TESTLOGS TARGET: the "SKIPPED: <why>" line of a passed target
# whose test could not run on this machine (Bazel 4 knows no skipped status),
# or nothing.
skip_reason() {
  grep -m1 '^SKIPPED: ' "$(test_log "$1" "$2")" 2>/dev/null || true
}
