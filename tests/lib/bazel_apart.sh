#!/usr/bin/env bash
# Bazel for a tier whose build must not disturb the normal (gcc) one: its own
# output base under /var/cache/ftb-test (kept across CI runs on a machine, one
# per checkout, like Bazel's own per-workspace output bases), so that it can
# build while the normal build's tests run, and neither rebuilds the other.
#   tests/lib/bazel_apart.sh fuzz test //tests/fuzz/...    # clang-14, --config=fuzz (tests/fuzz/bazel.sh)
#   tests/lib/bazel_apart.sh fuzz shutdown
# One tier today: tests/run-all.sh builds its sanitizer and fuzz tiers there.
set -euo pipefail
cd "$(dirname "$0")/../.."
tier=$1
shift
case $tier in
  # Selecting clang-14 re-runs the C++ toolchain's configuration: in the normal
  # output base that would rebuild every C++ action of the gcc build.
  fuzz) options=(--repo_env=CC=clang-14 --config=fuzz) ;;
  *) echo "bazel_apart: unknown tier '$tier' (fuzz)" >&2; exit 2 ;;
esac
root=${FTB_APART_OUTPUT_ROOT:-/var/cache/ftb-test}/bazel-$tier
output_base="$root/$(pwd -P | md5sum | cut -c1-12)"
mkdir -p "$output_base"
command=$1
shift
# --symlink_prefix=/: no bazel-bin, bazel-testlogs ... links in the workspace,
# which would otherwise point into this output base instead of the normal one.
case $command in
  build | test | run | cquery | aquery)
    exec bazel --output_base="$output_base" "$command" "${options[@]}" --symlink_prefix=/ "$@" ;;
  info)
    exec bazel --output_base="$output_base" info "${options[@]}" "$@" ;;
  *)
    exec bazel --output_base="$output_base" "$command" "$@" ;;
esac
