#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Split the guest's test output stream into one TAP file per program.
#
# usage: split-tap.sh TTYS1_LOG TAP_DIR
#
# scripts/vm-init.sh frames each program's output as
#   ### BEGIN <name>
#   ...
#   ### END <name> rc=<exit code>
# and TAP_DIR/<name>.tap gets what is in between, made into valid TAP that
# also reflects the exit code:
#  - TAP output (ok/not ok lines or a plan) with rc=0 (or 4, kselftest's
#    "skip") is kept as is;
#  - TAP output with another rc gets an extra "not ok" and its plan bumped;
#  - other output becomes '#' diagnostics of a single test, ok iff rc=0
#    (rc=4 gives a skipped plan);
#  - a BEGIN without END (guest crash, hang, timeout) becomes a failing
#    test with the partial output as diagnostics.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 TTYS1_LOG TAP_DIR" >&2; exit 2; }
LOG=$1
DIR=$2
mkdir -p "$DIR"
[ -f "$LOG" ] || exit 0

awk -v dir="$DIR" '
function fname(n) {
	gsub(/[^A-Za-z0-9._-]/, "_", n)
	return dir "/" n ".tap"
}
function is_tap(   i) {
	for (i = 1; i <= nl; i++)
		if (buf[i] ~ /^(not )?ok( |$)/ || buf[i] ~ /^1\.\.[0-9]+/)
			return 1
	return 0
}
function diag_all(f,   i) {
	for (i = 1; i <= nl; i++)
		print "# " buf[i] > f
}
function flush(rc, complete,   f, i, plan, ntests, m) {
	f = fname(name)
	if (!complete) {
		diag_all(f)
		print "1..1" > f
		print "not ok 1 - " name ": no END marker (guest crashed, hung or timed out)" > f
	} else if (!is_tap()) {
		diag_all(f)
		if (rc == 0) {
			print "1..1" > f
			print "ok 1 - " name > f
		} else if (rc == 4) {
			print "1..0 # SKIP " name " exited with 4 (skip)" > f
		} else {
			print "1..1" > f
			print "not ok 1 - " name " exited with rc=" rc > f
		}
	} else if (rc == 0 || rc == 4) {
		for (i = 1; i <= nl; i++)
			print buf[i] > f
	} else {
		plan = -1; ntests = 0
		for (i = 1; i <= nl; i++) {
			if (plan < 0 && match(buf[i], /^1\.\.[0-9]+/)) {
				plan = substr(buf[i], 4, RLENGTH - 3) + 0
				continue
			}
			if (buf[i] ~ /^(not )?ok( |$)/)
				ntests++
			print buf[i] > f
		}
		if (plan < 0)
			plan = ntests
		print "not ok - " name " exited with rc=" rc > f
		print "1.." plan + 1 > f
	}
	close(f)
	name = ""; nl = 0
}
{ sub(/\r$/, "") }
/^### BEGIN / {
	if (name != "")
		flush(0, 0)
	name = substr($0, 11); nl = 0
	next
}
/^### END / {
	if (name == "")
		next
	rc = $0; sub(/.* rc=/, "", rc)
	flush(rc + 0, 1)
	next
}
name != "" { buf[++nl] = $0 }
END {
	if (name != "")
		flush(0, 0)
}
' "$LOG"
