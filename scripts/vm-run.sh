#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel under QEMU (TCG) on an emulated NUMA machine and
# collect the results as TAP.
#
# usage: vm-run.sh --kernel BZIMAGE --initrd CPIO
#                  --topology numa4|cxl|hotplug-cpu|hotplug-cxl
#                  --mode test|demo|bench|shell --out DIR [--timeout SECS]
#                  [--append "EXTRA CMDLINE"]
#        vm-run.sh --kernel BZIMAGE [--initrd CPIO] --disk ROOT.img
#                  [--drive DATA.img] --topology ... --mode system --out DIR
#
# In system mode the machine boots a whole system from ROOT.img (the
# first virtio disk, /dev/vda, written to a copy-on-write layer that is
# thrown away at the end: the image stays as it was), with DATA.img
# read-only as /dev/vdb; the initramfs is the system's own, if it needs
# one (scripts/system-image.sh, scripts/system-test.sh).  A guest that
# prints "WI-INIT: reboot" on its console before it reboots is booted
# again, from the same layer (up to $VM_BOOTS times in all, default 3).
#
# Writes DIR/console.log (ttyS0, the kernel console), DIR/ttyS1.log (the
# programs' output), DIR/tap/<name>.tap per program (scripts/split-tap.sh),
# DIR/tap/kernel-console.tap (scripts/check-console.sh), DIR/tap/vm.tap
# (did the VM run to the end in time) and DIR/timing.
#
# Environment: VM_TIMEOUT, VM_STALL, VM_APPEND (extra kernel parameters),
# VM_TEST_TIMEOUT (per-program limit in the guest), VM_BOOTS (system mode:
# boots at most), QEMU, QEMU_CPU (max),
# QEMU_ACCEL (tcg,thread=multi), VM_ICOUNT=1 (guest clocks advance by
# executed instructions, -icount shift=0,sleep=off: repeatable timings for
# benchmarks, on one host thread, with only the boot CPU online).
#
# The host stops QEMU when the guest has printed nothing, on the console
# or from its programs, for $VM_STALL seconds (default 900; the guest
# prints a line a minute while a program runs), or after the whole run's
# limit (default 80 min, --timeout or $VM_TIMEOUT). Neither is a measure
# of speed: a slower or busier host only makes the run longer.
# Exit status: 0 if the guest's /init ran to completion, 1 if not (crash,
# hang, timeout), 2 on usage errors. Test results are in the TAP files,
# not in the exit status.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KERNEL="" INITRD="" TOPO="" MODE="" OUT="" DISK="" DRIVE=""
TIMEOUT=${VM_TIMEOUT:-4800}
STALL=${VM_STALL:-900}
EXTRA_APPEND=${VM_APPEND:-}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_CPU=${QEMU_CPU:-max}
# Multi-threaded TCG: no KVM is assumed on build/CI machines.
QEMU_ACCEL=${QEMU_ACCEL:-tcg,thread=multi}
ICOUNT=() ICOUNT_APPEND=''
if [ "${VM_ICOUNT:-0}" = 1 ]; then
	# icount needs single-threaded TCG.
	QEMU_ACCEL=tcg,thread=single
	# shellcheck disable=SC2054 # commas are part of QEMU's option syntax
	ICOUNT=(-icount shift=0,sleep=off)
	# Under icount the guest spins forever bringing up the second vCPU;
	# the benchmarks are single-threaded, so boot one CPU (the other
	# nodes keep their memory, CPU-less).
	ICOUNT_APPEND=maxcpus=1
fi

usage() {
	script_help "$0" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--kernel) KERNEL=$2 ;;
	--initrd) INITRD=$2 ;;
	--topology) TOPO=$2 ;;
	--mode) MODE=$2 ;;
	--out) OUT=$2 ;;
	--timeout) TIMEOUT=$2 ;;
	--append) EXTRA_APPEND=$2 ;;
	--disk) DISK=$2 ;;
	--drive) DRIVE=$2 ;;
	*) usage ;;
	esac
	shift 2
done
for v in "$KERNEL" "$TOPO" "$MODE" "$OUT"; do
	[ -n "$v" ] || usage
done
[ -f "$KERNEL" ] || die "kernel image $KERNEL not found"
case $MODE in
test|demo|bench|shell) [ -f "$INITRD" ] || die "initramfs ${INITRD:-(--initrd)} not found" ;;
system)
	[ -f "$DISK" ] || die "root disk image ${DISK:-(--disk)} not found"
	[ -z "$INITRD" ] || [ -f "$INITRD" ] || die "initramfs $INITRD not found"
	[ -z "$DRIVE" ] || [ -f "$DRIVE" ] || die "disk image $DRIVE not found"
	;;
*) die "unknown mode '$MODE'" ;;
esac
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants seconds"

# --- topologies ---------------------------------------------------------------
# Per node: memory (MiB), cpus ("-" for a memory-only node) and the initiator
# (CPU node) it is attached to; then the SLIT matrix, row i = distances
# from node i. HMAT access latency/bandwidth for every initiator->target
# pair follow the distances: latency = 10 ns per distance unit,
# bandwidth = 240000/distance MiB/s (local DRAM: 100 ns, ~24 GB/s), scaled
# by NODE_BW (percent, per target node, default 100).
# A node with 0 MiB has no memory at boot; HOTPLUG=1 gives the machine
# DIMM slots and scripts/vm-hotplug.py, which hot-adds DIMMs to such nodes
# when the guest asks on ttyS2. ONLY= names the programs a test run of the
# topology is for (the others need memory on every node).
HOTPLUG=0 ONLY='' NODE_BW=()
topology() {
	case $1 in
	numa4)
		# Four single-CPU nodes, asymmetric distances (d(i,j) != d(j,i)).
		SOCKETS=4 CORES=1
		NODE_MEM=(384 384 384 384)
		NODE_CPUS=(0 1 2 3)
		NODE_INIT=(0 1 2 3)
		DIST=(
			"10 12 20 28"
			"14 10 22 26"
			"24 21 10 16"
			"32 30 18 10"
		)
		;;
	cxl)
		# Two DRAM nodes with two CPUs each, and a CPU-less memory
		# expander behind each (slower, lower bandwidth, like CXL).
		SOCKETS=2 CORES=2
		NODE_MEM=(384 384 256 256)
		NODE_CPUS=(0-1 2-3 - -)
		NODE_INIT=(0 1 0 1)
		DIST=(
			"10 21 24 34"
			"21 10 34 24"
			"24 34 10 44"
			"34 24 44 10"
		)
		;;
	# Two machines for memory hotplug, each with one node that has no
	# memory until a DIMM is hot-added to it.  That node comes last:
	# QEMU's SRAT gives the hotpluggable range to the last node only,
	# and Linux ignores an HMAT that lists a memory node SRAT does not.
	hotplug-cpu)
		# A node with a CPU whose memory is all hot-added, and half as
		# fast as node 0's, so that its auto weight is not node 0's.
		SOCKETS=2 CORES=1
		NODE_MEM=(512 0)
		NODE_CPUS=(0 1)
		NODE_INIT=(0 1)
		NODE_BW=(100 50)
		DIST=(
			"10 20"
			"20 10"
		)
		HOTPLUG=1 ONLY=wi_hotplug
		;;
	hotplug-cxl)
		# A CPU-less node behind node 0, a CXL expander onlined later.
		SOCKETS=1 CORES=1
		NODE_MEM=(512 0)
		NODE_CPUS=(0 -)
		NODE_INIT=(0 0)
		DIST=(
			"10 24"
			"24 10"
		)
		HOTPLUG=1 ONLY=wi_hotplug
		;;
	*)
		die "unknown topology '$1' (known: numa4 cxl hotplug-cpu hotplug-cxl)"
		;;
	esac
}
topology "$TOPO"
NODES=${#NODE_MEM[@]}

dist() { # dist FROM TO
	local row
	read -r -a row <<<"${DIST[$1]}"
	echo "${row[$2]}"
}

# --- QEMU command line ------------------------------------------------------------
total_mem=0
numa_args=()
for ((i = 0; i < NODES; i++)); do
	total_mem=$((total_mem + NODE_MEM[i]))
	node="node,nodeid=$i,initiator=${NODE_INIT[i]}"
	if [ "${NODE_MEM[i]}" -gt 0 ]; then
		numa_args+=(-object "memory-backend-ram,id=mem$i,size=${NODE_MEM[i]}M")
		node+=",memdev=mem$i"
	fi
	if [ "${NODE_CPUS[i]}" != - ]; then
		node+=",cpus=${NODE_CPUS[i]}"
	fi
	numa_args+=(-numa "$node")
done
for ((i = 0; i < NODES; i++)); do
	for ((j = 0; j < NODES; j++)); do
		[ $i -ne $j ] || continue
		numa_args+=(-numa "dist,src=$i,dst=$j,val=$(dist $i $j)")
	done
done
for ((i = 0; i < NODES; i++)); do
	[ "${NODE_CPUS[i]}" != - ] || continue # only CPU nodes initiate
	for ((j = 0; j < NODES; j++)); do
		d=$(dist $i $j)
		numa_args+=(-numa "hmat-lb,initiator=$i,target=$j,hierarchy=memory,data-type=access-latency,latency=$((d * 10))")
		numa_args+=(-numa "hmat-lb,initiator=$i,target=$j,hierarchy=memory,data-type=access-bandwidth,bandwidth=$((240000 * ${NODE_BW[j]:-100} / (100 * d)))M")
	done
done
ncpus=$((SOCKETS * CORES))

# Expected topology for the in-guest check (scripts/vm-topology.sh).
join() { local IFS=$1; shift; echo "$*"; }
rows=()
for ((i = 0; i < NODES; i++)); do
	read -r -a row <<<"${DIST[i]}"
	rows+=("$(join , "${row[@]}")")
done
# nohugevmalloc: vmalloc() in 4 KiB pages, so that large vmalloc()s go
# through the bulk page allocator, which wi_bulk tests.
#
# RCU's stall detector is a wall-clock limit: under emulation a vCPU runs
# only when the host gives its thread CPU, and on a loaded 2-core host a
# vCPU copying pages for a forking test was seen to take 1,197 ticks in
# 65 s, which a 60 s limit reports as a stall (on Debian's kernels it is
# 21 s).  The tests' machines take the longest limit there is, 300 s: a
# CPU that really stops still shows, a slow host does not.
cmdline="console=ttyS0,115200 oops=panic panic=-1 kmemleak=on nohugevmalloc"
[ "$MODE" != system ] || cmdline+=" root=/dev/vda rw"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=300"
cmdline+=" wi.mode=$MODE wi.topo=$TOPO wi.dist=$(join / "${rows[@]}")"
cmdline+=" wi.cpus=$(join / "${NODE_CPUS[@]}") wi.init=$(join , "${NODE_INIT[@]}")"
[ -z "${VM_TEST_TIMEOUT:-}" ] || cmdline+=" wi.timeout=$VM_TEST_TIMEOUT"
[ "$MODE" != test ] || [ -z "$ONLY" ] || cmdline+=" wi.only=$ONLY"
# Hot-added memory stays offline until the test onlines it, whatever the
# kernel's default (Debian's upstream kernels online it at once).
[ "$HOTPLUG" = 0 ] || cmdline+=" wi.hotplug=/dev/ttyS2 memhp_default_state=offline"
[ -z "$ICOUNT_APPEND" ] || cmdline+=" $ICOUNT_APPEND"
[ -z "$EXTRA_APPEND" ] || cmdline+=" $EXTRA_APPEND"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT/tap" "$OUT/console.log" "$OUT/ttyS1.log" "$OUT/timing" \
	"$OUT/hotplug.log" "$OUT/qmp.sock" "$OUT/ctl.in" "$OUT/ctl.out" \
	"$OUT/root.qcow2" "$OUT/qemu.log"
mkdir -p "$OUT/tap"

# Memory hotplug: DIMM slots, QMP, and ttyS2 to ask for DIMMs on.
mem_arg="${total_mem}M"
hotplug_args=()
if [ "$HOTPLUG" = 1 ]; then
	mem_arg+=",slots=4,maxmem=$((total_mem + 4096))M"
	mkfifo "$OUT/ctl.in" "$OUT/ctl.out"
	# shellcheck disable=SC2054 # commas are part of QEMU's option syntax
	hotplug_args=(-qmp "unix:$OUT/qmp.sock,server=on,wait=off"
		      -chardev "pipe,id=ctl,path=$OUT/ctl" -serial chardev:ctl)
fi

# shellcheck disable=SC2054 # commas are part of QEMU's option syntax
if [ "$MODE" = shell ]; then
	# Console on the terminal (and logged); Ctrl-A x quits QEMU.
	console=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$OUT/console.log"
		 -serial chardev:con -mon chardev=con,mode=readline)
else
	# appended to, from one boot to the next
	console=(-chardev "file,id=con,path=$OUT/console.log,append=on" -serial chardev:con)
fi

# shellcheck disable=SC2054
qemu=(
	"$QEMU" -accel "$QEMU_ACCEL" "${ICOUNT[@]}" -machine pc,hmat=on -cpu "$QEMU_CPU"
	-smp "$ncpus,sockets=$SOCKETS,cores=$CORES,threads=1" -m "$mem_arg"
	"${numa_args[@]}"
	-nodefaults -no-user-config -display none -no-reboot
	"${console[@]}"
	-chardev "file,id=out,path=$OUT/ttyS1.log,append=on" -serial chardev:out
	"${hotplug_args[@]}"
	-kernel "$KERNEL" -append "$cmdline"
)
[ -z "$INITRD" ] || qemu+=(-initrd "$INITRD")
# shellcheck disable=SC2054
if [ -n "$DISK" ]; then
	# the copy-on-write layer, kept from one boot to the next
	qemu-img create -q -f qcow2 -F raw -b "$(realpath "$DISK")" "$OUT/root.qcow2" ||
		die "qemu-img create failed"
	qemu+=(-drive "file=$OUT/root.qcow2,format=qcow2,if=virtio")
fi
# shellcheck disable=SC2054
[ -z "$DRIVE" ] || qemu+=(-drive "file=$DRIVE,format=raw,if=virtio,readonly=on")
printf '%q ' "${qemu[@]}" >"$OUT/qemu-cmdline"
echo >>"$OUT/qemu-cmdline"

info "booting $TOPO ($NODES nodes, $ncpus vCPUs, ${total_mem} MiB) in $MODE mode, timeout ${TIMEOUT}s; logs in $OUT"
start=$(date +%s)
rc=0
helper=''
if [ "$HOTPLUG" = 1 ]; then
	"$REPO_ROOT/scripts/vm-hotplug.py" --qmp "$OUT/qmp.sock" \
		--ctl "$OUT/ctl" --log "$OUT/hotplug.log" &
	helper=$!
fi
stalled=0
if [ "$MODE" = shell ]; then
	timeout --foreground -k 10 "$TIMEOUT" "${qemu[@]}" || rc=$?
else
	# A loaded or slower host stretches the run without bound; only a
	# guest that stops making progress is stopped: one whose programs'
	# output (ttyS1) and console have not grown for $STALL seconds.
	# $TIMEOUT still bounds the whole run.
	boots=0 limit=0
	while :; do
		boots=$((boots + 1))
		"${qemu[@]}" </dev/null >>"$OUT/qemu.log" 2>&1 &
		qpid=$!
		seen=-1 last=$(date +%s) now=$last
		while kill -0 "$qpid" 2>/dev/null; do
			sleep 2
			now=$(date +%s)
			size=$({ cat "$OUT/ttyS1.log" "$OUT/console.log" 2>/dev/null || true; } | wc -c)
			if [ "$size" != "$seen" ]; then
				seen=$size last=$now
			fi
			if [ $((now - last)) -ge "$STALL" ]; then
				stalled=1
			elif [ $((now - start)) -ge "$TIMEOUT" ]; then
				limit=1
			else
				continue
			fi
			kill "$qpid" 2>/dev/null || true
			sleep 10
			kill -9 "$qpid" 2>/dev/null || true
			break
		done
		wait "$qpid" || rc=$?
		# QEMU ends with status 0 on SIGTERM: the limit says what happened
		[ "$limit" = 0 ] || rc=124
		# a guest that asked for a reboot (system mode) boots again
		if [ "$MODE" != system ] || [ $rc != 0 ] || [ $stalled = 1 ]; then
			break
		fi
		[ "$(tr -d '\r' <"$OUT/console.log" | grep -c '^WI-INIT: reboot')" -ge $boots ] || break
		[ $boots -lt "${VM_BOOTS:-3}" ] || break
		info "$TOPO: the guest rebooted; boot $((boots + 1))"
	done
fi
rm -f "$OUT/root.qcow2"
end=$(date +%s)
wall=$((end - start))
if [ -n "$helper" ]; then
	kill "$helper" 2>/dev/null || true
	wait "$helper" 2>/dev/null || true
fi

# --- results ------------------------------------------------------------------------
touch "$OUT/console.log" "$OUT/ttyS1.log"
timed_out=0
if [ "$stalled" = 1 ]; then
	timed_out=1
	why="QEMU killed: no output for ${STALL}s, after ${wall}s"
	echo "### HOST: $why" >>"$OUT/console.log"
	warn "$TOPO: $why"
elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	timed_out=1
	why="QEMU killed after the ${TIMEOUT}s limit"
	echo "### HOST: $why" >>"$OUT/console.log"
	warn "$TOPO: $why"
elif [ $rc -ne 0 ]; then
	echo "### HOST: QEMU exited with status $rc" >>"$OUT/console.log"
	warn "$TOPO: QEMU exited with status $rc:"
	sed 's/^/    /' "$OUT/qemu.log" >&2 || true
fi

"$REPO_ROOT/scripts/split-tap.sh" "$OUT/ttyS1.log" "$OUT/tap"
"$REPO_ROOT/scripts/check-console.sh" "$OUT/console.log" "$OUT/tap/kernel-console.tap" >/dev/null

guest_time() { # uptime the guest printed with a WI-INIT line
	tr -d '\r' <"$OUT/console.log" | sed -n "s/^WI-INIT: $1 .*uptime=\([0-9.]*\).*/\1/p" | head -1
}
t_init=$(guest_time start)
t_done=$(guest_time "done")
completed=0
[ -z "$t_done" ] || completed=1
{
	echo "topology=$TOPO mode=$MODE"
	echo "qemu_wall_seconds=$wall"
	echo "qemu_status=$rc"
	echo "guest_uptime_at_init=${t_init:-none}"
	echo "guest_uptime_at_done=${t_done:-none}"
} >"$OUT/timing"

{
	echo "1..1"
	if [ $completed = 1 ]; then
		echo "ok 1 - $TOPO VM ran /init to completion in ${wall}s (QEMU status $rc)"
	elif [ $timed_out = 1 ]; then
		echo "not ok 1 - $TOPO VM: $why"
	else
		echo "not ok 1 - $TOPO VM stopped before /init completed (QEMU status $rc)"
	fi
	sed 's/^/# /' "$OUT/timing"
} >"$OUT/tap/vm.tap"

info "$TOPO: QEMU ran ${wall}s; guest reached /init at ${t_init:-?}s, finished at ${t_done:-?}s (guest uptime)"
[ $completed = 1 ]
