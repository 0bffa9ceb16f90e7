#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on every patch of
# kernel-patches/series and report TAP, one test per patch.
#
# usage: checkpatch.sh [--out TAP_FILE]
#
# TAP goes to stdout and to TAP_FILE (default
# build/results/host/tap/checkpatch.tap). Exit status is non-zero if any
# patch has errors, warnings or checks.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TAP=$BUILD_DIR/results/host/tap/checkpatch.tap
LINUX=${KSRC:-$BUILD_DIR/linux}
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
		f=$REPO_ROOT/kernel-patches/$p
		if [ ! -f "$f" ]; then
			echo "not ok $n - kernel-patches/$p (listed in series, missing)"
			fail=1
			continue
		fi
		if out=$(cd "$LINUX" && perl scripts/checkpatch.pl --strict --color=never "$f" 2>&1); then
			echo "ok $n - checkpatch --strict kernel-patches/$p"
		else
			echo "not ok $n - checkpatch --strict kernel-patches/$p"
			fail=1
		fi
		printf '%s\n' "$out" | sed 's/^/# /'
	done
} >"$TAP"
cat "$TAP"
exit $fail
