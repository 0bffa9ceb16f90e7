#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: boot the emulated machine with instruction-counted clocks
# (VM_ICOUNT=1) and run /selftests/wi_bench once in that boot; then do the
# same on upstream's own weighted interleave (Debian's 6.12 cloud kernel)
# for reference, and print the ratios of both side by side.
#
# usage: bench.sh --kernel BZIMAGE --initrd CPIO --out DIR
#                 [--topology numa4|cxl] [--no-upstream]
#
# Writes DIR/project/ and DIR/upstream/ (vm-run.sh output of each boot;
# wi_bench's report is in ttyS1.log) and DIR/summary.txt. Extra wi_bench
# options go in $WI_BENCH_ARGS (for example "-s 256 -r 9"). Exit status
# is non-zero when the benchmark of this series' kernel did not run to the
# end; upstream's run is best effort (no archive, no reference).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	script_help "$0" >&2
	exit 2
}

KERNEL='' INITRD='' OUT='' TOPO=numa4 UPSTREAM=1
while [ $# -gt 0 ]; do
	case $1 in
	--no-upstream) UPSTREAM=0; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case $1 in
	--kernel) KERNEL=$2 ;;
	--initrd) INITRD=$2 ;;
	--out) OUT=$2 ;;
	--topology) TOPO=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ -z "$KERNEL" ] || [ -z "$INITRD" ] || [ -z "$OUT" ]; then
	usage
fi

scripts_dir=$(dirname "$0")
append=''
[ -z "${WI_BENCH_ARGS:-}" ] || append="wi.args=${WI_BENCH_ARGS// /,}"

# run NAME KERNEL: one boot; prints wi_bench's report.
run() {
	local rc=0
	VM_ICOUNT=1 "$scripts_dir/vm-run.sh" --kernel "$2" --initrd "$INITRD" \
		--topology "$TOPO" --mode bench --out "$OUT/$1" \
		${append:+--append "$append"} >"$OUT/$1.log" 2>&1 || rc=$?
	echo "--- $1 kernel: $(basename "$2") ---"
	tr -d '\r' < "$OUT/$1/ttyS1.log" | grep -v '^### '
	if [ "$rc" != 0 ] || ! grep -q '^### END wi_bench rc=0' "$OUT/$1/ttyS1.log"; then
		warn "$1: the benchmark did not complete; see $OUT/$1.log and $OUT/$1/console.log"
		return 1
	fi
}

# The "Ratios:" lines of a report as "label<TAB>value".
ratios() {
	tr -d '\r' < "$1" | awk '
		/^Ratios:/ { on = 1; next }
		on && /^$/ { exit }
		on { v = $NF; sub(/^ +/, ""); sub(/ +[^ ]+$/, ""); print $0 "\t" v }'
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/summary.txt"
rc=0
run project "$KERNEL" || rc=1
have_upstream=0
if [ "$UPSTREAM" = 1 ]; then
	if up=$(upstream_kernel 6.12 2>"$OUT/upstream-fetch.log" | tail -n 1) &&
		[ -f "$up" ]; then
		echo
		run upstream "$up" && have_upstream=1
	else
		warn "no upstream kernel for reference: $(tail -n 1 "$OUT/upstream-fetch.log")"
	fi
fi

[ "$rc" = 0 ] || exit 1
{
	echo
	echo "Summary ($TOPO, guest clocks counting instructions):"
	if [ "$have_upstream" = 1 ]; then
		printf '  %-40s %10s %10s\n' "" "this 6.1" "upstream"
		awk -F '\t' 'NR == FNR { up[$1] = $2; next }
			{ printf "  %-40s %10s %10s\n", $1, $2,
				($1 in up) ? up[$1] : "-" }' \
			<(ratios "$OUT/upstream/ttyS1.log") \
			<(ratios "$OUT/project/ttyS1.log")
	else
		ratios "$OUT/project/ttyS1.log" |
			awk -F '\t' '{ printf "  %-40s %10s\n", $1, $2 }'
	fi
} | tee "$OUT/summary.txt"
