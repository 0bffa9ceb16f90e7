#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run shellcheck over the test-machine scripts; TAP, one test per script.
#
# usage: shellcheck.sh [--out TAP_FILE]
#
# TAP goes to stdout and to TAP_FILE (default
# build/results/host/tap/shellcheck.tap).
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TAP=$BUILD_DIR/results/host/tap/shellcheck.tap
while [ $# -gt 0 ]; do
	case $1 in
	--out) TAP=$2; shift 2 ;;
	*) die "usage: $0 [--out TAP_FILE]" ;;
	esac
done
command -v shellcheck >/dev/null || die "shellcheck not installed (scripts/deps.sh)"
mkdir -p "$(dirname "$TAP")"

cd "$REPO_ROOT"
mapfile -t files < <(ls scripts/*.sh scripts/system/*.sh scripts/system/wi-system-test \
	userspace/bwapd/tests/*.sh numactl/host-tests/*.sh; echo .ci/run)
fail=0
{
	echo "1..${#files[@]}"
	n=0
	for f in "${files[@]}"; do
		n=$((n + 1))
		if out=$(shellcheck "$f" 2>&1); then
			echo "ok $n - shellcheck $f"
		else
			echo "not ok $n - shellcheck $f"
			printf '%s\n' "$out" | sed 's/^/# /'
			fail=1
		fi
	done
} >"$TAP"
cat "$TAP"
exit $fail
