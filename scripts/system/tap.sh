# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the system test machine's programs (operator.sh, operator-boot.sh)
# share: TAP lines, and waits for a state.  Sourced.
export DEBIAN_FRONTEND=noninteractive
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi; }
# until CMD succeeds, or LIMIT seconds have passed; its status
await() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}
diag() { sed 's/^/# /'; }
# the plan, and the status: 0 when every check passed
finish() {
	echo "1..$n"
	[ $failed -eq 0 ]
}
