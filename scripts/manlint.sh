#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint the man pages with mandoc and report TAP, one test per page: any
# warning or error fails it.  Every *.[1-8] outside build/ is a page:
# Documentation/man2 (system calls) and man8 (bwapd).
#
# usage: manlint.sh [--out TAP_FILE]   (default build/results/host/tap/manpages.tap)
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TAP=$BUILD_DIR/results/host/tap/manpages.tap
while [ $# -gt 0 ]; do
	case $1 in
	--out) TAP=$2; shift 2 ;;
	*) die "usage: $0 [--out TAP_FILE]" ;;
	esac
done
command -v mandoc >/dev/null || die "mandoc not installed (scripts/deps.sh)"
mkdir -p "$(dirname "$TAP")"

mapfile -t pages < <(cd "$REPO_ROOT" &&
	find . -path ./build -prune -o -type f -name '*.[1-8]' -print | sort)
fail=0
{
	echo "1..${#pages[@]}"
	n=0
	for p in "${pages[@]}"; do
		n=$((n + 1))
		if out=$(cd "$REPO_ROOT" && mandoc -T lint -W warning "$p" 2>&1) &&
		   [ -z "$out" ]; then
			echo "ok $n - mandoc -T lint ${p#./}"
		else
			echo "not ok $n - mandoc -T lint ${p#./}"
			printf '%s\n' "$out" | sed 's/^/# /'
			fail=1
		fi
	done
} >"$TAP"
cat "$TAP"
exit "$fail"
