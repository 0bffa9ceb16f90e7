#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Memory controller PMUs as real machines show them in sysfs, for bwapd's
# tests: the host tests (tests/uncore.c) and the test machine
# (selftests/bwapd/bwapd.sh).
#
#   pmu-fixture.sh [--standin] ROOT SHAPE CPUS
#
# Writes ROOT/sys/bus/event_source/devices/<PMU>/{type,cpumask,format/*,
# events/*} and ROOT/proc/cpuinfo (vendor, family, model: what bwapd
# reads to pick documented encodings).  CPUS is the cpumask the kernel
# would show: one CPU per package ("0,28" on a 2x28-core machine); the
# caller picks CPUs its topology has.
#
# --standin: the counters become real file descriptors of the kernel's
# software PMU (cpu-clock): 'type' is the software PMU's (1) and every
# format field is moved from config to config1 at the same bits, so that
# bwapd computes the real machine's encodings (they land in config1,
# which the software PMU ignores) while perf_event_open opens cpu-clock
# (config 0) on the CPUs of the cpumask.  Only 'type' and the format's
# target field differ from the real machine.
#
# Shapes; every fact from Linux 6.1 (Debian's source) unless it says 6.12:
#   skx       Xeon Skylake-SP, 2 memory controllers x 3 channels per socket:
#             uncore_imc_0..5 (arch/x86/events/intel/uncore_snbep.c:
#             skx_uncore_imc, num_boxes 6, hswep_uncore_imc_events,
#             skx_uncore_format_group).  cpuinfo: GenuineIntel 6/85.
#   icx       Xeon Ice Lake-SP, 4 memory controllers x 2 channels per socket:
#             uncore_imc_free_running_0..3 (icx_uncore_imc_free_running,
#             icx_uncore_imc_freerunning_events: read, write) and
#             uncore_imc_0..11 (icx_uncore_imc, snr_uncore_imc_events).
#             cpuinfo: GenuineIntel 6/106.
#   spr       Xeon Sapphire Rapids: uncore_imc_0..7 with format only (the
#             discovery-table driver: SPR_UNCORE_COMMON_FORMAT, no
#             cas_count aliases), uncore_imc_free_running_0..3 with dclk,
#             rpq_cycles, wpq_cycles only (spr_uncore_imc_freerunning_events).
#             cpuinfo: GenuineIntel 6/143.  With SNC2 the same PMUs: only
#             the NUMA topology differs (two nodes per package).
#   zen3      EPYC Milan, 6.1: amd_df only, format event
#             "config:0-7,32-35,59-60" and umask "config:8-15", no events/
#             (arch/x86/events/amd/uncore.c: amd_uncore_df_init, event14,
#             umask8); cpuinfo AuthenticAMD 25/1.
#   zen4      EPYC Genoa, 6.1: amd_df with the PerfMonV2 format event
#             "config:0-7,32-37", umask "config:8-15,24-27" (event14v2,
#             umask12); cpuinfo AuthenticAMD 25/17.
#   zen4-612  EPYC Genoa, 6.12: zen4's amd_df and amd_umc_0..(12 x sockets
#             - 1), numbered across packages, each with the cpumask of its
#             own package only, format event "config:0-7", rdwrmask
#             "config:8-9", no events/ (amd_uncore_umc_ctx_init,
#             amd_uncore_umc_format_attr in v6.12).
set -eu

standin=0
if [ "${1:-}" = --standin ]; then
	standin=1
	shift
fi
[ $# -eq 3 ] || { echo "usage: $0 [--standin] ROOT SHAPE CPUS" >&2; exit 2; }
root=$1 shape=$2 cpus=$3
dev=$root/sys/bus/event_source/devices
nr_pkgs=$(echo "$cpus" | tr ',' '\n' | grep -c .)

# pmu NAME TYPE CPUMASK FORMAT...  (FORMAT: name=spec)
pmu() {
	d=$dev/$1
	mkdir -p "$d/format"
	if [ $standin = 1 ]; then echo 1; else echo "$2"; fi >"$d/type"
	echo "$3" >"$d/cpumask"
	shift 3
	for f in "$@"; do
		spec=${f#*=}
		[ $standin = 1 ] && spec=$(echo "$spec" | sed 's/^config:/config1:/')
		echo "$spec" >"$d/format/${f%%=*}"
	done
}

# event PMU NAME TERMS [SCALE UNIT]
event() {
	mkdir -p "$dev/$1/events"
	echo "$3" >"$dev/$1/events/$2"
	if [ $# -gt 3 ]; then
		echo "$4" >"$dev/$1/events/$2.scale"
		echo "$5" >"$dev/$1/events/$2.unit"
	fi
}

cpuinfo() { # VENDOR FAMILY MODEL NAME
	mkdir -p "$root/proc"
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: %s\n' \
		"$1" "$2" "$3" "$4" >"$root/proc/cpuinfo"
}

MIB=6.103515625e-5
INTEL_FMT="event=config:0-7 umask=config:8-15 edge=config:18 inv=config:23 thresh=config:24-31"

intel_imc() { # FIRST LAST READ_UMASK WRITE_UMASK
	i=$1
	while [ "$i" -le "$2" ]; do
		# shellcheck disable=SC2086 # the format list
		pmu "uncore_imc_$i" $((20 + i)) "$cpus" $INTEL_FMT
		event "uncore_imc_$i" clockticks "event=0x00,umask=0x00"
		event "uncore_imc_$i" cas_count_read "event=0x04,umask=$3" $MIB MiB
		event "uncore_imc_$i" cas_count_write "event=0x04,umask=$4" $MIB MiB
		i=$((i + 1))
	done
}

case $shape in
skx)
	cpuinfo GenuineIntel 6 85 "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz"
	intel_imc 0 5 0x03 0x0c
	;;
icx)
	cpuinfo GenuineIntel 6 106 "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz"
	intel_imc 0 11 0x0f 0x30
	for i in 0 1 2 3; do
		p=uncore_imc_free_running_$i
		pmu $p $((40 + i)) "$cpus" event=config:0-7 umask=config:8-15
		event $p dclk "event=0xff,umask=0x10"
		event $p read "event=0xff,umask=0x20" $MIB MiB
		event $p write "event=0xff,umask=0x21" $MIB MiB
	done
	;;
spr)
	cpuinfo GenuineIntel 6 143 "Intel(R) Xeon(R) Platinum 8480+"
	for i in 0 1 2 3 4 5 6 7; do
		pmu "uncore_imc_$i" $((20 + i)) "$cpus" event=config:0-7 \
			umask=config:8-15,32-55 edge=config:18 inv=config:23 thresh=config:24-31
	done
	for i in 0 1 2 3; do
		p=uncore_imc_free_running_$i
		pmu $p $((40 + i)) "$cpus" event=config:0-7 umask=config:8-15
		event $p dclk "event=0xff,umask=0x10"
		event $p rpq_cycles "event=0xff,umask=0x20"
		event $p wpq_cycles "event=0xff,umask=0x21"
	done
	;;
zen3)
	cpuinfo AuthenticAMD 25 1 "AMD EPYC 7763 64-Core Processor"
	pmu amd_df 11 "$cpus" event=config:0-7,32-35,59-60 umask=config:8-15
	pmu amd_l3 12 "$cpus" event=config:0-7 umask=config:8-15
	;;
zen4 | zen4-612)
	cpuinfo AuthenticAMD 25 17 "AMD EPYC 9654 96-Core Processor"
	pmu amd_df 11 "$cpus" event=config:0-7,32-37 umask=config:8-15,24-27
	if [ "$shape" = zen4-612 ]; then
		n=0
		for c in $(echo "$cpus" | tr ',' ' '); do
			i=0
			while [ $i -lt 12 ]; do
				pmu "amd_umc_$n" $((30 + n)) "$c" event=config:0-7 rdwrmask=config:8-9
				n=$((n + 1))
				i=$((i + 1))
			done
		done
	fi
	;;
*)
	echo "$0: unknown shape '$shape'" >&2
	exit 2
	;;
esac
echo "$shape: $nr_pkgs package(s), cpumask $cpus" >"$dev/.fixture"
