#!/usr/bin/env bash
# Runs one fuzz target as a test: run_fuzzer.sh BINARY SECONDS SEED_DIR [DICT].
# A libFuzzer binary (--config=fuzz) fuzzes for SECONDS (FTB_FUZZ_SECONDS, passed
# with --test_env, overrides it) starting from SEED_DIR, writing what it learns
# into a scratch corpus, never into the seeds. A crashing input is saved in the
# test's undeclared outputs (bazel-testlogs/.../test.outputs/) and printed in
# the log. A binary built without libFuzzer ignores the flags and replays the seeds.
set -euo pipefail
binary=$1 seconds=${FTB_FUZZ_SECONDS:-$2} seeds=$3
flags=()
if [[ $# -ge 4 ]]; then flags+=("-dict=$4"); fi
scratch=$(mktemp -d "${TEST_TMPDIR:-/tmp}/corpus.XXXXXX")
artifacts=${TEST_UNDECLARED_OUTPUTS_DIR:-$scratch}
exec "$binary" "${flags[@]}" \
  -max_total_time="$seconds" \
  -timeout=10 \
  -print_final_stats=1 \
  -artifact_prefix="$artifacts/" \
  "$scratch" "$seeds"
