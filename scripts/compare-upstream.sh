#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test: boot the same test programs on this series' kernel
# and on upstream's own weighted interleave (Debian's cloud kernels), in
# the same emulated machines, and require the same result from every test
# case.
#
# usage: compare-upstream.sh --kernel BZIMAGE --initrd CPIO --out DIR
#                            [--topology "numa4 hotplug-cpu ..."]
#                            [--upstream "6.12 7.3"] [--project-results DIR]
#        compare-upstream.sh --compare-results "RESULTS_A RESULTS_B"
#                            --topology LIST --out DIR
#
# The upstream kernels are Debian's 6.12 cloud kernel (Debian 12) and its
# newest upstream one, 7.3 from trixie-backports (upstream_kernel in
# lib.sh); their drivers for the emulated machine are built in, so they
# boot the same initramfs.  For each topology, writes DIR/TOPO/project/ and
# DIR/TOPO/upstream-SERIES/ (vm-run.sh output of each kernel) and
# DIR/compare-TOPO-SERIES.tap: one test per test case, "ok" when both
# kernels pass it or both skip it, or when the difference is one this
# series makes on purpose (listed below, with the reason).
#
# --project-results DIR takes this series' results from DIR/TOPO (as make
# check writes them, e.g. build/results/6.12) instead of booting --kernel
# again; --kernel then only names it.
#
# With --compare-results nothing is booted: the results of two series'
# kernels (RESULTS/TOPO/ as make check writes them, e.g. build/results/6.1
# and build/results/6.12) are compared case by case, with no difference
# allowed, into DIR/compare-TOPO-A-B.tap.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: $0 --kernel BZIMAGE --initrd CPIO --out DIR [--topology LIST] [--upstream LIST]" >&2
	echo "       $0 --compare-results \"RESULTS_A RESULTS_B\" --topology LIST --out DIR" >&2
	exit 2
}

KERNEL='' INITRD='' OUT='' TOPOS=numa4 SERIES='6.12 7.3' RESULTS='' PROJECT=''
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--project-results) PROJECT=$2 ;;
	--compare-results) RESULTS=$2 ;;
	--kernel) KERNEL=$2 ;;
	--initrd) INITRD=$2 ;;
	--out) OUT=$2 ;;
	--topology) TOPOS=$2 ;;
	--upstream) SERIES=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ -z "$OUT" ] || { [ -z "$RESULTS" ] &&
	{ [ -z "$KERNEL" ] || [ -z "$INITRD" ]; }; }; then
	usage
fi

# Test cases whose result differs on purpose: "series program:case
# reason", series "*" for every upstream kernel.  Per-process weights
# (set_mempolicy_weights(2)) do not exist upstream: there, the tests that
# need them skip, and the probe finds ENOSYS.  numactl's tests of
# --weights expect its error there instead.  Nor do the rows of weights per
# initiator (per_initiator): their tests skip there.
ALLOWED_DIFFERENCES='
* wi_weights:weights.* per-process weights are not in upstream Linux
* wi_weights32:weights.* per-process weights are not in upstream Linux
* wi_seccomp:seccomp.* per-process weights are not in upstream Linux
* wi_weights_stress:stress.* per-process weights are not in upstream Linux
* wi_owner:owner.vm_writev_* per-process weights are not in upstream Linux
* wi_owner:owner.proc_pid_mem_* per-process weights are not in upstream Linux
* wi_owner:owner.ptrace_pokedata per-process weights are not in upstream Linux
* wi_owner:owner.writer_task_policy_* per-process weights are not in upstream Linux
* bwapd:tuner:* bwapd tunes a process through its per-process weights, which are not in upstream Linux
* wi_rows:rows.* the rows of weights per initiator are not in upstream Linux
* numactl_weighted:*per_initiator* the rows of weights per initiator are not in upstream Linux
* bwapd:apply?--per-initiator* the rows of weights per initiator are not in upstream Linux
* bwapd:global:?with?the?rows?per?initiator?on:* the rows of weights per initiator are not in upstream Linux
7.3 wi_bulk:bulk.vmalloc_follows_weights the vmalloc of upstream takes high-order pages first (a 2048-page table comes as two order-10 blocks, each from one node), so it is not interleaved page by page through the bulk allocator
6.12 wi_vma:wi_vma.interleave_hit upstream counts weighted interleave in NUMA_INTERLEAVE_HIT only from 6.13
6.12 wi_sysfs:wi_sysfs.auto_switch upstream has the auto switch only from 6.16
6.12 wi_hotplug:hotplug.* upstream has a weight file for every possible node, whatever its memory, until 6.16
7.3 wi_hotplug:hotplug.node_with_cpu upstream derives auto weights only when a node reports its bandwidth, and a node with a CPU reports it at boot, before its memory comes: that node keeps weight 1 (Documentation/kernel.md)
'

# Between two series (--compare-results), a case may skip on one base for
# what the base kernel lacks, and pass on the other: "base program:case
# reason", as above.  Nothing else may differ.
SERIES_SKIPS='
6.1 wi_weights*:weights.thread_pidfd the 6.1 base has no PIDFD_THREAD pidfds (upstream 6.9)
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

# allowed LIST SERIES PROG CASE: the reason LIST (ALLOWED_DIFFERENCES,
# SERIES_SKIPS) gives for a difference of PROG:CASE on SERIES
allowed() {
	local series=$2 prog=$3 tcase=$4 ser pat reason
	while read -r ser pat reason; do
		[ -n "$pat" ] || continue
		[ "$ser" = '*' ] || [ "$ser" = "$series" ] || continue
		# shellcheck disable=SC2053
		if [[ "$prog:$tcase" == $pat ]]; then
			echo "$reason"
			return 0
		fi
	done <<< "$1"
	return 1
}

# compare A.results B.results SERIES WHERE [BASE_A BASE_B]: TAP, one test
# per test case of A or B; SERIES names B for the allowed differences (""
# for none), WHERE says where B ran ("upstream", "on 6.12"); BASE_A and
# BASE_B name two series' bases for SERIES_SKIPS.
compare() {
	local n=0 key p u prog tcase reason there=$4 joined skipped
	joined=$(mktemp)
	join -t "$TAB" -a 1 -a 2 -e missing -o 0,1.2,2.2 "$1" "$2" >"$joined"
	while IFS=$TAB read -r key p u; do
		n=$((n + 1))
		prog=${key%%:*} tcase=${key#*:}
		if [ "$p" = "$u" ] && [ "$p" != fail ] && [ "$p" != missing ]; then
			echo "ok $n - $key: $p on both kernels"
		elif [ "$p" = pass ] && [ -n "$3" ] &&
			reason=$(allowed "$ALLOWED_DIFFERENCES" "$3" "$prog" "$tcase"); then
			echo "ok $n - $key: $p here, $u $there # deliberate: $reason"
		elif skipped=$(case $p$u in skippass) echo "${5:-}" ;;
				passskip) echo "${6:-}" ;; esac) &&
			[ -n "$skipped" ] &&
			reason=$(allowed "$SERIES_SKIPS" "$skipped" "$prog" "$tcase"); then
			echo "ok $n - $key: $p here, $u $there # base: $reason"
		else
			echo "not ok $n - $key: $p here, $u $there"
		fi
	done <"$joined"
	echo "1..$n"
	rm -f "$joined"
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/compare-*.tap
TAB=$(printf '\t')
rc=0

if [ -n "$RESULTS" ]; then
	read -r a b rest <<<"$RESULTS"
	if [ -z "$b" ] || [ -n "$rest" ]; then
		usage
	fi
	la=$(basename "$a") lb=$(basename "$b")
	for topo in $TOPOS; do
		results "$a/$topo" | sort -t "$TAB" -k 1,1 >"$OUT/$topo-$la.results"
		results "$b/$topo" | sort -t "$TAB" -k 1,1 >"$OUT/$topo-$lb.results"
		{
			echo "# $la: $a/$topo"
			echo "# $lb: $b/$topo"
			compare "$OUT/$topo-$la.results" "$OUT/$topo-$lb.results" \
				"" "on $lb" "$la" "$lb"
		} >"$OUT/compare-$topo-$la-$lb.tap"
		grep -q '^not ok' "$OUT/compare-$topo-$la-$lb.tap" && rc=1
	done
	exit "$rc"
fi
scripts_dir=$(dirname "$0")
declare -A upstream
for series in $SERIES; do
	upstream[$series]=$(upstream_kernel "$series")
	info "upstream $series kernel: ${upstream[$series]}"
done
info "project kernel: $KERNEL"
for topo in $TOPOS; do
	dir=$OUT/$topo
	mkdir -p "$dir"
	if [ -n "$PROJECT" ]; then
		[ -d "$PROJECT/$topo/tap" ] || die "no results in $PROJECT/$topo"
		rm -rf "$dir/project"
		cp -r "$PROJECT/$topo" "$dir/project"
	else
		"$scripts_dir/vm-run.sh" --kernel "$KERNEL" --initrd "$INITRD" \
			--topology "$topo" --mode test --out "$dir/project" || rc=1
	fi
	results "$dir/project" | sort -t "$TAB" -k 1,1 > "$dir/project.results"
	for series in $SERIES; do
		"$scripts_dir/vm-run.sh" --kernel "${upstream[$series]}" \
			--initrd "$INITRD" --topology "$topo" --mode test \
			--out "$dir/upstream-$series" || rc=1
		results "$dir/upstream-$series" | sort -t "$TAB" -k 1,1 \
			> "$dir/upstream-$series.results"
		{
			echo "# project: $KERNEL"
			echo "# upstream $series: ${upstream[$series]}"
			compare "$dir/project.results" \
				"$dir/upstream-$series.results" "$series" upstream
		} >"$OUT/compare-$topo-$series.tap"
	done
done
[ "$rc" = 0 ] || warn "a VM did not run to completion: see $OUT/*/*/console.log"
exit "$rc"
