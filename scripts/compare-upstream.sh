#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test: boot the same test programs on this series' kernel
# and on upstream's own weighted interleave (Debian's 6.12 cloud kernel),
# in the same emulated machine, and require the same result from every
# test case.
#
# usage: compare-upstream.sh --kernel BZIMAGE --initrd CPIO --out DIR
#                            [--topology numa4|cxl]
#
# Upstream's kernel is Debian's 6.12 cloud kernel (upstream_kernel in
# lib.sh); its drivers for the emulated machine are built in, so it boots
# the same initramfs.  Writes DIR/{project,upstream}/ (vm-run.sh output of each
# kernel) and DIR/compare.tap: one test per test case, "ok" when both
# kernels pass it or both skip it, or when the difference is one this
# series makes on purpose (listed below, with the reason).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 --kernel BZIMAGE --initrd CPIO --out DIR [--topology NAME]" >&2
	exit 2
}

KERNEL='' INITRD='' OUT='' TOPO=numa4
while [ $# -gt 0 ]; do
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

# Test cases whose result differs on purpose: "program:case reason".
# Per-process weights (set_mempolicy_weights(2)) do not exist upstream:
# there, the tests that need them skip, and the probe finds ENOSYS.
# numactl's tests of --weights expect its error there instead.
ALLOWED_DIFFERENCES='
wi_weights:weights.* per-process weights are not in upstream Linux
wi_weights_stress:stress.* per-process weights are not in upstream Linux
wi_vma:wi_vma.interleave_hit upstream counts weighted interleave in NUMA_INTERLEAVE_HIT only from 6.13
'

# "program:case<TAB>status" for every test case of a vm-run.sh result
# directory (the case is the harness's test name, else the TAP
# description); status is pass, fail, skip or todo (an expected failure).
results() {
	local f prog
	for f in "$1"/tap/*.tap; do
		prog=$(basename "$f" .tap)
		case $prog in kernel-console|vm|topology) continue ;; esac
		awk -v prog="$prog" '
			/^#  RUN / { name = $3; next }
			/^(not )?ok [0-9]+/ {
				st = /^not ok/ ? (/# TODO/ ? "todo" : "fail") : \
					(/# SKIP/ ? "skip" : "pass")
				d = $0
				sub(/^(not )?ok [0-9]+( - )?/, "", d)
				sub(/ # (SKIP|TODO).*$/, "", d)
				if (name == "")
					name = d != "" ? d : "case-" NR
				print prog ":" name "\t" st
				name = ""
			}' "$f"
	done
}

allowed() {
	local prog=$1 tcase=$2 pat reason
	while read -r pat reason; do
		[ -n "$pat" ] || continue
		# shellcheck disable=SC2053
		if [[ "$prog:$tcase" == $pat ]]; then
			echo "$reason"
			return 0
		fi
	done <<< "$ALLOWED_DIFFERENCES"
	return 1
}

mkdir -p "$OUT"
UPSTREAM=$(upstream_kernel)
info "project kernel: $KERNEL"
info "upstream kernel: $UPSTREAM"
rc=0
scripts_dir=$(dirname "$0")
"$scripts_dir/vm-run.sh" --kernel "$KERNEL" --initrd "$INITRD" \
	--topology "$TOPO" --mode test --out "$OUT/project" || rc=1
"$scripts_dir/vm-run.sh" --kernel "$UPSTREAM" --initrd "$INITRD" \
	--topology "$TOPO" --mode test --out "$OUT/upstream" || rc=1

TAB=$(printf '\t')
results "$OUT/project" | sort -t "$TAB" -k 1,1 > "$OUT/project.results"
results "$OUT/upstream" | sort -t "$TAB" -k 1,1 > "$OUT/upstream.results"

{
	n=0
	echo "# project: $KERNEL"
	echo "# upstream: $UPSTREAM ($(basename "$UPSTREAM" .vmlinuz))"
	join -t "$TAB" -a 1 -a 2 -e missing -o 0,1.2,2.2 \
		"$OUT/project.results" "$OUT/upstream.results" |
	while IFS=$TAB read -r key p u; do
		n=$((n + 1))
		prog=${key%%:*} tcase=${key#*:}
		if [ "$p" = "$u" ] && [ "$p" != fail ] && [ "$p" != missing ]; then
			echo "ok $n - $key: $p on both kernels"
		elif [ "$p" = pass ] && reason=$(allowed "$prog" "$tcase"); then
			echo "ok $n - $key: $p here, $u upstream # deliberate: $reason"
		else
			echo "not ok $n - $key: $p here, $u upstream"
		fi
		echo "$n" > "$OUT/.count"
	done
	echo "1..$(cat "$OUT/.count" 2>/dev/null || echo 0)"
	rm -f "$OUT/.count"
} > "$OUT/compare.tap"
[ "$rc" = 0 ] || warn "a VM did not run to completion: see $OUT/*/console.log"
exit "$rc"
