#!/usr/bin/env bash
# docs/ARCHITECTURE.md stays a true map: every top-level folder of the
# workspace and every room one level below agent/, client/ and components/
# must appear in it, as `<path>/` or, in its parent's row, as `<name>/`. A
# folder added without a line in the map fails here.
set -euo pipefail
map=$(readlink -f "${TEST_SRCDIR:-$0.runfiles}/ftb/docs/ARCHITECTURE.md")
root=$(dirname "$(dirname "$map")")
[[ -d "$root/agent" && -d "$root/client" ]] || { echo "FAIL: cannot find the workspace from $map"; exit 1; }
missing=()
check() {  # PATH
  local path=$1 name=${1##*/}
  grep -qF -- "$path/" "$map" || grep -qF -- "\`$name/\`" "$map" || missing+=("$path/")
}
count=0
for dir in "$root"/*/; do
  name=$(basename "$dir")
  [[ "$name" == bazel-* ]] && continue
  check "$name"
  count=$((count + 1))
done
for parent in agent client components; do
  for dir in "$root/$parent"/*/; do
    [[ -d "$dir" ]] || continue
    check "$parent/$(basename "$dir")"
    count=$((count + 1))
  done
done
if ((${#missing[@]} > 0)); then
  echo "FAIL: docs/ARCHITECTURE.md does not mention: ${missing[*]}"
  exit 1
fi
echo "docs/ARCHITECTURE.md mentions all $count folders"
