#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one stage of the host tests and record the result as TAP, so that
# a build that fails fails make check by name, with the compiler's
# messages in its log, rather than as test files that are missing.
#
# usage: build-stage.sh NAME TAPFILE COMMAND [ARG...]
#
# COMMAND's output goes to TAPFILE's directory as NAME-build.log. TAPFILE
# gets one test, "NAME builds"; when it fails, the end of the log follows
# as diagnostics (prove-results.sh prints failing files in full) and is
# printed on standard output too. Exits with COMMAND's status.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: $0 NAME TAPFILE COMMAND [ARG...]" >&2; exit 2; }
name=$1 tap=$2
shift 2
mkdir -p "$(dirname "$tap")"
log=$(dirname "$tap")/$name-build.log
rc=0
"$@" >"$log" 2>&1 || rc=$?
{
	echo "1..1"
	if [ "$rc" -eq 0 ]; then
		echo "ok 1 - $name builds"
	else
		echo "not ok 1 - $name builds (exit $rc; the end of $log follows)"
		tail -n 60 "$log" | sed 's/^/# /'
	fi
} >"$tap"
if [ "$rc" -ne 0 ]; then
	echo "=== $name: the build failed (exit $rc)"
	tail -n 60 "$log"
fi
exit "$rc"
