#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn a guest console log into TAP.
#
# usage: check-console.sh CONSOLE_LOG [TAP_FILE]
#
# Writes TAP to TAP_FILE (default: tap/kernel-console.tap next to the log)
# and to stdout. Test 1 fails on any kernel splat (the matching lines are
# listed as diagnostics, then the first report in full, CONTEXT lines);
# test 2 fails unless /init got to the end of its run ("WI-INIT: done",
# printed by scripts/vm-init.sh).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 CONSOLE_LOG [TAP_FILE]" >&2
	exit 2
fi
LOG=$1
TAP=${2:-$(dirname "$LOG")/tap/kernel-console.tap}
mkdir -p "$(dirname "$TAP")"

# Extended regexps, matched case-sensitively against each console line.
PATTERNS=(
	'WARNING:'
	'BUG:'
	'KASAN'
	'UBSAN'
	'Oops'
	'general protection'
	'Kernel panic'
	'possible circular locking'
	'possible recursive locking'
	'inconsistent lock state'
	'lockdep'
	'list_add corruption'
	'list_del corruption'
	'kmemleak: [0-9]+ new suspected memory leaks'
	'RCU stall'
	'rcu_(sched|preempt) self-detected stall'
	'rcu: INFO: .* detected stalls'
	'sleeping function called from invalid context'
	'soft lockup'
	'hard LOCKUP'
	'blocked for more than [0-9]+ seconds'
	'Unable to handle kernel'
)
# Lines that match the above but are part of every healthy boot.
IGNORE=(
	'rcu:[[:space:]]+RCU lockdep checking is enabled'
)
MAX_DIAG=${MAX_DIAG:-60}
CONTEXT=${CONTEXT:-40}

regex=$(IFS='|'; echo "${PATTERNS[*]}")
ignore=$(IFS='|'; echo "${IGNORE[*]}")

{
	echo "1..2"
	if [ ! -s "$LOG" ]; then
		echo "not ok 1 - kernel console is free of warnings and splats"
		echo "# $LOG is missing or empty"
	else
		# Strip CRs and QEMU/terminal noise before matching.
		hits=$(tr -d '\r' <"$LOG" | grep -n -E -a -- "$regex" |
			grep -v -E -a -- "$ignore" || true)
		if [ -z "$hits" ]; then
			echo "ok 1 - kernel console is free of warnings and splats"
		else
			count=$(wc -l <<<"$hits")
			echo "not ok 1 - kernel console is free of warnings and splats ($count matching line(s))"
			head -n "$MAX_DIAG" <<<"$hits" | sed 's/^/# /'
			[ "$count" -le "$MAX_DIAG" ] || echo "# ... $((count - MAX_DIAG)) more, see $LOG"
			# The first report in full (up to CONTEXT lines): the
			# task, the locks and the backtrace say where it was.
			first=${hits%%:*}
			echo "# the first report, from console line $first:"
			tr -d '\r' <"$LOG" | sed -n "${first},$((first + CONTEXT - 1))p" |
				sed 's/^/#   /'
		fi
	fi
	# all of the log read (grep -q would stop at the line, and tr's
	# SIGPIPE fail the pipe under pipefail on a long log)
	if tr -d '\r' <"$LOG" 2>/dev/null | grep -a '^WI-INIT: done' >/dev/null; then
		echo "ok 2 - guest /init ran to completion"
	else
		echo "not ok 2 - guest /init ran to completion"
		echo "# no 'WI-INIT: done' on the console: the guest crashed, hung or timed out"
		tr -d '\r' <"$LOG" 2>/dev/null | tail -n 15 | sed 's/^/#   /' || true
	fi
} | tee "$TAP"
