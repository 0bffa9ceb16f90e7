#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: boot the emulated machine with instruction-counted clocks
# (VM_ICOUNT=1) and run /selftests/wi_bench once in that boot, for each
# kernel given; then do the same on upstream's own weighted interleave
# (Debian's 6.12 cloud kernel) for reference, and print the ratios of all
# side by side.
#
# usage: bench.sh --kernel [LABEL=]BZIMAGE [--kernel ...] --initrd CPIO
#                 --out DIR [--topology numa4|cxl] [--no-upstream]
#
# LABEL names the kernel in the summary (default "project"), e.g.
# --kernel 6.1=build/6.1/kernel-bench/arch/x86/boot/bzImage.
# Writes DIR/LABEL/ and DIR/upstream/ (vm-run.sh output of each boot;
# wi_bench's report is in ttyS1.log) and DIR/summary.txt. Extra wi_bench
# options go in $WI_BENCH_ARGS (for example "-s 256 -r 9"). Exit status
# is non-zero when the benchmark of one of the kernels given did not run
# to the end; upstream's run is best effort (no archive, no reference).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	script_help "$0" >&2
	exit 2
}

LABELS=() INITRD='' OUT='' TOPO=numa4 UPSTREAM=1
declare -A KERNELS=()
while [ $# -gt 0 ]; do
	case $1 in
	--no-upstream) UPSTREAM=0; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case $1 in
	--kernel)
		case $2 in
		*=*) l=${2%%=*} k=${2#*=} ;;
		*) l=project k=$2 ;;
		esac
		LABELS+=("$l")
		KERNELS[$l]=$k
		;;
	--initrd) INITRD=$2 ;;
	--out) OUT=$2 ;;
	--topology) TOPO=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ ${#LABELS[@]} -eq 0 ] || [ -z "$INITRD" ] || [ -z "$OUT" ]; then
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
for l in "${LABELS[@]}"; do
	[ "$l" = "${LABELS[0]}" ] || echo
	run "$l" "${KERNELS[$l]}" || rc=1
done
cols=("${LABELS[@]}")
if [ "$UPSTREAM" = 1 ]; then
	if up=$(upstream_kernel 6.12 2>"$OUT/upstream-fetch.log" | tail -n 1) &&
		[ -f "$up" ]; then
		echo
		run upstream "$up" && cols+=(upstream)
	else
		warn "no upstream kernel for reference: $(tail -n 1 "$OUT/upstream-fetch.log")"
	fi
fi

[ "$rc" = 0 ] || exit 1
# One column per kernel, one row per ratio of the first kernel's report.
{
	echo
	echo "Summary ($TOPO, guest clocks counting instructions):"
	for c in "${cols[@]}"; do
		ratios "$OUT/$c/ttyS1.log" | sed "s/^/$c\t/"
	done | awk -F '\t' -v cols="${cols[*]}" '
		BEGIN { nc = split(cols, c, " ") }
		!($2 in seen) { seen[$2] = 1; row[++nr] = $2 }
		{ v[$1, $2] = $3 }
		END {
			printf "  %-40s", ""
			for (i = 1; i <= nc; i++) printf " %10s", c[i]
			printf "\n"
			for (r = 1; r <= nr; r++) {
				printf "  %-40s", row[r]
				for (i = 1; i <= nc; i++)
					printf " %10s", ((c[i], row[r]) in v) ? v[c[i], row[r]] : "-"
				printf "\n"
			}
		}'
} | tee "$OUT/summary.txt"
