#!/usr/bin/env bash
# lintian on every package deploy/package-deb.sh builds (-dbgsym ones included):
# no errors, and no warnings: a warning is either fixed or overridden in
# /usr/share/lintian/overrides/<package> (deploy/debian/*lintian-overrides),
# where every override carries a comment with its reason.
set -euo pipefail
# Bazel's test PATH lacks the sbin directories some dpkg tools look in.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
root="${TEST_SRCDIR}/ftb"
work=$(mktemp -d /tmp/ftb-lintian-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v lintian >/dev/null || fail "lintian missing: run deploy/install-deps.sh"

bash "$root/deploy/package-deb.sh" --from "$root" --out "$work/out" >"$work/debs"
expected=$(grep -c '^Package: ' "$root/deploy/debian/control")
built=$(grep -cv -- '-dbgsym_' "$work/debs")
[[ "$built" -eq "$expected" ]] || fail "package-deb built $built packages, deploy/debian/control declares $expected"

# Every override says why, on the comment lines just above it.
for f in "$root"/deploy/debian/*lintian-overrides; do
  awk -v f="$(basename "$f")" '
    /^#/ { reason = 1; next }
    /^[[:space:]]*$/ { reason = 0; next }
    !reason { print "FAIL: " f ": override without a reason comment above it: " $0; bad = 1 }
    END { exit bad }' "$f" >&2 || exit 1
done

mapfile -t debs <"$work/debs"
status=0
lintian --allow-root --show-overrides "${debs[@]}" >"$work/lintian.log" 2>&1 || status=$?
cat "$work/lintian.log"
errors=$(grep -c '^E: ' "$work/lintian.log" || true)
warnings=$(grep -c '^W: ' "$work/lintian.log" || true)
overridden=$(grep -c '^O: ' "$work/lintian.log" || true)
# Exit 1 with only info tags is lintian's way; anything else is lintian failing.
[[ $status -le 1 ]] || fail "lintian exited $status"
[[ $errors -eq 0 && $warnings -eq 0 ]] || fail "lintian: $errors errors, $warnings warnings (above)"
echo "lintian test passed: ${#debs[@]} packages, 0 errors, 0 warnings, $overridden overridden (with reasons)"
