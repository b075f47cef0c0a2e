#!/usr/bin/env bash
# Bazel for the fuzz targets: clang-14 and --config=fuzz in an output base of
# their own (tests/lib/bazel_apart.sh), so the normal gcc build's cache stays intact.
#   tests/fuzz/bazel.sh test //tests/fuzz:all
#   tests/fuzz/bazel.sh run //tests/fuzz:filter_fuzzer_bin -- -max_total_time=600 DIR
#   tests/fuzz/bazel.sh shutdown
exec "$(dirname "$0")/../lib/bazel_apart.sh" fuzz "$@"
