#!/usr/bin/env bash
# Bazel for the fuzz targets: clang-14 (--repo_env=CC) and --config=fuzz in an
# output base of their own, so the normal gcc build's cache stays intact.
# The output base lives under /var/cache/ftb-test (kept across CI runs on a
# machine), one per checkout, like Bazel's own per-workspace output bases.
#   tests/fuzz/bazel.sh test //tests/fuzz:all
#   tests/fuzz/bazel.sh run //tests/fuzz:filter_fuzzer_bin -- -max_total_time=600 DIR
#   tests/fuzz/bazel.sh shutdown
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${FTB_FUZZ_OUTPUT_ROOT:-/var/cache/ftb-test/bazel-fuzz}
output_base="$root/$(pwd -P | md5sum | cut -c1-12)"
mkdir -p "$output_base"
command=$1
shift
# --symlink_prefix=/: no bazel-bin, bazel-testlogs ... links in the workspace,
# which would otherwise point into this output base instead of the normal one.
case $command in
  build | test | run | cquery | aquery)
    exec bazel --output_base="$output_base" "$command" --repo_env=CC=clang-14 --config=fuzz \
      --symlink_prefix=/ "$@" ;;
  info)
    exec bazel --output_base="$output_base" info --repo_env=CC=clang-14 --config=fuzz "$@" ;;
  *)
    exec bazel --output_base="$output_base" "$command" "$@" ;;
esac
