#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Summarise TAP results with prove.
#
# usage: prove-results.sh FILE.tap...
#
# Files may be given more than once (duplicates are dropped).
#
# Files that failed (or are missing) are printed in full first, so their
# diagnostics are in the log; prove's summary comes last and its exit
# status is ours.
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 FILE.tap..." >&2; exit 2; }

# Same file named twice (explicitly and by a glob): keep the first.
declare -A seen=()
files=()
for f in "$@"; do
	[ -z "${seen[$f]:-}" ] || continue
	seen[$f]=1
	files+=("$f")
done
set -- "${files[@]}"

for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "=== $f: missing"
	elif grep -q -E '^(not ok|Bail out!)' "$f"; then
		echo "=== $f"
		cat "$f"
	fi
done
echo
exec prove --exec cat "$@"
