#!/usr/bin/env bash
# Makes the cached Debian roots that the suite's root tiers use, where they
# are missing: the minimal Debian 12 root (tests/install/fresh_root.sh), the
# real-systemd tier's root (tests/system/systemd_layer.sh) and the ULFM tier's
# trixie root (tests/ulfm/trixie_root.sh). tests/run-all.sh starts it in the
# background before the first build, so that on a fresh machine downloading
# and unpacking packages overlaps with compiling instead of following it. Each
# builder holds its own lock: a test that needs a root still being made waits
# for it, then reuses it. Nothing here fails the suite: a root that cannot be
# made is reported (or SKIPPED) by the tests that need it, as without this.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[[ $(id -u) -eq 0 ]] || exit 0  # the root tiers skip themselves
bash tests/install/fresh_root.sh --cache-only
bash tests/system/systemd_layer.sh >/dev/null
bash tests/ulfm/trixie_root.sh --cache-only >/dev/null
exit 0
