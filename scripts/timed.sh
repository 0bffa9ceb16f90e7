#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command as one stage of a longer run and record how long it took.
#
# usage: timed.sh FILE NAME COMMAND [ARG...]
#
# Appends "NAME<TAB>SECONDS<TAB>STATUS" to FILE and exits with the
# command's status. A NAME that starts with a space is a part of a stage
# that runs beside others (a test machine among several), shown indented
# and left out of the total. --print turns FILE into a table:
#   timed.sh --print FILE
set -euo pipefail

if [ "${1:-}" = --print ]; then
	[ -f "${2:-}" ] || exit 0
	awk -F'\t' '
		{ printf "  %-30s %6ds  %s\n", $1, $2, $3 == 0 ? "" : "(exit " $3 ")" }
		$1 !~ /^ / { t += $2 }
		END { printf "  %-30s %6ds  (%d min %d s)\n", "total", t, t / 60, t % 60 }' "$2"
	exit 0
fi
[ $# -ge 3 ] || { echo "usage: $0 FILE NAME COMMAND [ARG...]" >&2; exit 2; }
file=$1 name=$2
shift 2
mkdir -p "$(dirname "$file")"
start=$(date +%s)
rc=0
"$@" || rc=$?
printf '%s\t%d\t%d\n' "$name" "$(($(date +%s) - start))" "$rc" >>"$file"
exit "$rc"
