#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the base tree's checkpatch.pl --strict on every patch of
# kernel-patches/BASE/series and report TAP, one test per patch.
#
# usage: [BASE=6.12] checkpatch.sh [--out TAP_FILE]
#
# TAP goes to stdout and to TAP_FILE (default
# build/results/host/tap/checkpatch-BASE.tap). Exit status is non-zero if any
# patch has errors, warnings or checks.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TAP=$BUILD_DIR/results/host/tap/checkpatch-$BASE.tap
LINUX=${KSRC:-$BASE_BUILD/linux}
while [ $# -gt 0 ]; do
	case $1 in
	--out) TAP=$2; shift 2 ;;
	*) die "usage: $0 [--out TAP_FILE]" ;;
	esac
done
CP=$LINUX/scripts/checkpatch.pl
[ -f "$CP" ] || die "$CP not found (run scripts/kernel-source.sh first)"
mkdir -p "$(dirname "$TAP")"

mapfile -t patches < <(series_patches)
fail=0
{
	if [ ${#patches[@]} -eq 0 ]; then
		echo "1..0 # SKIP no patches"
	else
		echo "1..${#patches[@]}"
	fi
	n=0
	for p in "${patches[@]}"; do
		n=$((n + 1))
		f=$PATCH_DIR/$p
		if [ ! -f "$f" ]; then
			echo "not ok $n - kernel-patches/$BASE/$p (listed in series, missing)"
			fail=1
			continue
		fi
		if out=$(cd "$LINUX" && perl scripts/checkpatch.pl --strict --color=never "$f" 2>&1); then
			echo "ok $n - checkpatch --strict kernel-patches/$BASE/$p"
		else
			echo "not ok $n - checkpatch --strict kernel-patches/$BASE/$p"
			fail=1
		fi
		printf '%s\n' "$out" | sed 's/^/# /'
	done
} >"$TAP"
cat "$TAP"
exit $fail
