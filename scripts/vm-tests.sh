#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot every kernel base in every topology in test mode, a few machines at
# a time, each into OUT/BASE/TOPO (vm-run.sh's output), and record each
# boot's time as a stage of make check.
#
# usage: vm-tests.sh --initrd CPIO --out DIR --bases "6.1 6.12"
#                    --topologies "numa4 cxl ..." [--stock "6.12 ..."]
#                    [--jobs N] [--stages FILE]
#
# The kernel of BASE is build/BASE/kernel/arch/x86/boot/bzImage. Most test
# programs keep one emulated CPU busy, which is one host thread under TCG,
# so two machines side by side use both cores of a two-core host; --jobs
# (default $VM_JOBS, else the number of host CPUs) sets how many run at
# once. The longest boots start first. A machine that does not finish is
# reported by its TAP (vm.tap), not by the exit status, which is 0.
#
# --stock boots Debian's upstream kernels of those series (upstream_kernel
# in lib.sh: weighted interleave with global weights only, or none at all
# on 6.1, as users of stock kernels have it) in numa4 with bwapd's
# programs only, into OUT/stock-SERIES/numa4: bwapd as it works without
# per-process weights, DAMON's sysfs tree against bwapd's host test's, and
# bwapd inspect's access samples on the kernels users have (not on 6.1, where bwapd inspect's access balance of an
# interleaved process is wrong: Documentation/bwapd.md).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

INITRD='' OUT='' BASES_ARG='' TOPOS='' STOCK='' STAGES=/dev/null
JOBS=${VM_JOBS:-$(nproc)}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "usage: $0 --initrd CPIO --out DIR --bases LIST --topologies LIST [--jobs N] [--stages FILE]"
	case $1 in
	--initrd) INITRD=$2 ;;
	--out) OUT=$2 ;;
	--bases) BASES_ARG=$2 ;;
	--topologies) TOPOS=$2 ;;
	--stock) STOCK=$2 ;;
	--jobs) JOBS=$2 ;;
	--stages) STAGES=$2 ;;
	*) die "unknown argument: $1" ;;
	esac
	shift 2
done
if [ -z "$INITRD" ] || [ -z "$OUT" ] || [ -z "$BASES_ARG" ] || [ -z "$TOPOS" ]; then
	die "usage: $0 --initrd CPIO --out DIR --bases LIST --topologies LIST [--jobs N] [--stages FILE]"
fi
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs: not a positive number: $JOBS"

scripts_dir=$(dirname "$0")
mkdir -p "$OUT"
# boot NAME KERNEL TOPOLOGY [vm-run.sh ARG...], once a slot is free
boot() {
	local name=$1 k=$2 t=$3
	shift 3
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n || true
	done
	info "booting $t on $name"
	(
		"$scripts_dir/timed.sh" "$STAGES" " vm $name $t" \
			"$scripts_dir/vm-run.sh" --kernel "$k" --initrd "$INITRD" \
			--topology "$t" --mode test --out "$OUT/$name/$t" "$@" \
			>"$OUT/$name-$t.log" 2>&1 || true
		# Debian's kernels patch their own code at run time (static
		# keys and calls) through int3 breakpoints; under multi-threaded
		# TCG another vCPU may run a stale translation of a site being
		# patched and die on its int3 ("Oops: int3", seen in 7.3's
		# enqueue_task_fair and __schedule).  That is the emulator's
		# doing: such a machine boots once more, its console kept.
		# (On one host thread the translations stay coherent, but NUMA
		# balancing, which the tests watch, then runs otherwise.)
		c=$OUT/$name/$t/console.log
		if [[ $name == stock-* ]] && grep -q 'Oops: int3' "$c" 2>/dev/null; then
			mv "$c" "$OUT/$name-$t-int3-console.log"
			warn "$name $t: the emulator's int3 fault (see $name-$t-int3-console.log): booting again"
			"$scripts_dir/timed.sh" "$STAGES" " vm $name $t (again)" \
				"$scripts_dir/vm-run.sh" --kernel "$k" --initrd "$INITRD" \
				--topology "$t" --mode test --out "$OUT/$name/$t" "$@" \
				>"$OUT/$name-$t.log" 2>&1 || true
		fi
	) &
}

# The stock kernels first, while nothing else needs the network.
declare -A stock_kernel
for s in $STOCK; do
	# a kernel that cannot be fetched leaves its TAP files missing,
	# which fails the run at the end, not the other machines
	if k=$(upstream_kernel "$s"); then
		stock_kernel[$s]=$k
	else
		warn "no stock $s kernel: its machine is left out"
	fi
done
# Topology-major order: the first topology (numa4) is the longest, then
# the stock kernels' shorter numa4 runs.
first=1
for t in $TOPOS; do
	for b in $BASES_ARG; do
		k=$BUILD_DIR/$b/kernel/arch/x86/boot/bzImage
		[ -f "$k" ] || die "no kernel for base $b: $k (make kernel BASE=$b)"
		boot "$b" "$k" "$t"
	done
	[ -n "$first" ] || continue
	first=''
	for s in "${!stock_kernel[@]}"; do
		only=bwapd,bwapd_privileges,bwapd_damon_tree
		[ "$s" = 6.1 ] || only=$only,wi_inspect
		boot "stock-$s" "${stock_kernel[$s]}" numa4 --append "wi.only=$only"
	done
done
wait || true
