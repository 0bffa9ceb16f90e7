#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test initramfs (busybox sh).
#
# Kernel command line:
#   wi.mode=test    run /wi/checks/* then /selftests/* (sorted; wi_demo,
#                   wi_bench and the *_bench benchmarks excluded unless
#                   wi.only names them), each one's stdout+stderr going to
#                   /dev/ttyS1 between "### BEGIN <name>" and
#                   "### END <name> rc=<exit code>"; then power off
#   wi.mode=demo    the same for /selftests/wi_demo only
#   wi.mode=bench   the same for /selftests/wi_bench only
#   wi.mode=shell   interactive shell on the console (ttyS0)
#   wi.timeout=SECS per-program time limit (default 1800 on the machine
#                   the limits were set on, times how much slower this one
#                   runs a fixed computation, see speed_factor)
#   wi.args=A,B,... arguments for wi_demo or wi_bench (commas for spaces)
#   wi.only=A,B,... test mode runs only these /selftests programs (a
#                   topology made for them, e.g. the hotplug machine)
#   wi.hotplug=TTY  the serial line on which the host hot-adds DIMMs
#                   (scripts/vm-hotplug.py); read by the tests
#
# Every program runs as root with cwd /tmp and stdin from /dev/null. When
# the run is over "WI-INIT: done" is printed on the console: its absence
# means the guest did not get that far (scripts/check-console.sh).
#
# This is pid 1: it must not exit, so errors are handled explicitly and
# the script always ends in 'reboot -f' (QEMU runs with -no-reboot).
set -eu
# busybox ash has pipefail; POSIX sh does not.
# shellcheck disable=SC3040
set -o pipefail

export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/usr/local/bin
export HOME=/root
export TERM=vt100

log() {
	echo "WI-INIT: $*"
}

finish() {
	sync
	log "done mode=${MODE:-unknown} uptime=$(cut -d' ' -f1 /proc/uptime 2>/dev/null || echo '?')"
	reboot -f
	# Not reached; keep pid 1 alive if the reboot request failed.
	while :; do sleep 3600; done
}
trap 'log "init script failed (status $?)"; finish' EXIT

mnt() {
	# mnt TYPE DIR [OPTIONS]
	mkdir -p "$2"
	if ! mount -t "$1" ${3:+-o "$3"} "$1" "$2" 2>/dev/null; then
		log "warning: cannot mount $1 on $2"
		return 1
	fi
}

mnt proc /proc || true
mnt sysfs /sys || true
grep -q '^[^ ]* /dev ' /proc/mounts || mnt devtmpfs /dev || true
# bash's process substitution and scripts reading /dev/stdin need these.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
mnt tmpfs /tmp mode=1777 || true
mnt tmpfs /dev/shm mode=1777 || true
mnt hugetlbfs /dev/hugepages || true
mnt cgroup2 /sys/fs/cgroup || true
mnt debugfs /sys/kernel/debug || true
mkdir -p /root /var/tmp
hostname wi-test 2>/dev/null || true

MODE="test"
TIMEOUT=''
ARGS=''
ONLY=''
read -r cmdline </proc/cmdline || true
for arg in $cmdline; do
	case $arg in
	wi.mode=*) MODE=${arg#wi.mode=} ;;
	wi.timeout=*) TIMEOUT=${arg#wi.timeout=} ;;
	wi.args=*) ARGS=$(echo "${arg#wi.args=}" | tr , ' ') ;;
	wi.only=*) ONLY=$(echo "${arg#wi.only=}" | tr , ' ') ;;
	esac
done

log "start mode=$MODE uptime=$(cut -d' ' -f1 /proc/uptime) kernel=$(uname -r)"

# How much slower this machine runs than the one on which the default
# per-program limit was set: a fixed computation timed by the guest's
# clock, against the CALIBRATION_SECONDS it took there (never below 1):
# 4.0 s in a make check on a 2-core machine, two test machines side by
# side (4.02 s measured).
# Under emulation the guest runs as fast as the host gives it CPU, so a
# slower or busier host gets a longer limit instead of killed programs.
# The factor is taken once, at boot: a host that gets busier later is
# covered only by the limits' own room, twice the longest time seen
# (numactl_weighted: 995 s and numactl's suite over 900 s on a 2-core
# host also running two builds and a benchmark).
CALIBRATION_SECONDS=4.0
speed_factor() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	awk 'BEGIN { for (i = 0; i < 400000; i++) s += i % 7; exit s < 0 }'
	t1=$(cut -d' ' -f1 /proc/uptime)
	awk -v t0="$t0" -v t1="$t1" -v ref="$CALIBRATION_SECONDS" \
		'BEGIN { f = (t1 - t0) / ref; printf "%.2f %.2f", f < 1 ? 1 : f, t1 - t0 }'
}
if [ -z "$TIMEOUT" ]; then
	cal=$(speed_factor)
	WI_SPEED_FACTOR=${cal% *}
	TIMEOUT=$(awk -v f="$WI_SPEED_FACTOR" 'BEGIN { printf "%d", 1800 * f }')
	log "calibration took ${cal#* } s ($CALIBRATION_SECONDS s on the reference machine):" \
	    "time limits times $WI_SPEED_FACTOR, per program ${TIMEOUT} s"
fi
# the tests' own limits grow by it too (selftests/wi_harness.h)
WI_SPEED_FACTOR=${WI_SPEED_FACTOR:-1}
export WI_SPEED_FACTOR
log "nodes online: $(cat /sys/devices/system/node/online 2>/dev/null || echo '?')," \
    "cpus online: $(cat /sys/devices/system/cpu/online 2>/dev/null || echo '?')"

OUT=/dev/ttyS1
if [ -c "$OUT" ]; then
	# No CR/LF translation: the host splits this stream line by line.
	stty -F "$OUT" raw -echo 115200 2>/dev/null || true
else
	log "warning: $OUT missing, test output goes to the console"
	OUT=/dev/console
fi
# Open once for the whole run: a line written right after the last close
# of the serial port could be lost while the port shut down (a program's
# "### BEGIN" marker went missing that way).
exec 3>"$OUT"

# run_one PATH [ARG...]: run one program with its output framed on $OUT
# (fd 3).
run_one() {
	name=$(basename "$1")
	log "run $*"
	echo "### BEGIN $name" >&3
	rc=0
	t0=$(cut -d' ' -f1 /proc/uptime)
	# a line on the console a minute while it runs: the host stops a
	# guest only when nothing shows for long (vm-run.sh's VM_STALL)
	(while sleep 60; do log "running $name"; done) &
	beat=$!
	(cd /tmp && exec timeout -s KILL "$TIMEOUT" "$@") </dev/null >&3 2>&1 3>&- || rc=$?
	kill "$beat" 2>/dev/null || true
	wait "$beat" 2>/dev/null || true
	echo "### END $name rc=$rc" >&3
	log "end $name rc=$rc seconds=$(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime)"
}

# After the tests, report leaks if booted with kmemleak=on. Objects must
# be a few seconds old and survive two scans to be reported.
kmemleak_scan() {
	f=/sys/kernel/debug/kmemleak
	[ -w "$f" ] || return 0
	grep -qw 'kmemleak=on' /proc/cmdline || return 0
	log "kmemleak scan"
	sleep 5
	echo scan >"$f" 2>/dev/null || return 0
	echo scan >"$f" 2>/dev/null || return 0
	if [ -s "$f" ]; then
		log "kmemleak report follows"
		cat "$f"
	fi
}

case $MODE in
test)
	all="/wi/checks/* /selftests/*"
	if [ -n "$ONLY" ]; then
		all=''
		for t in $ONLY; do
			all="$all /selftests/$t"
		done
	fi
	# shellcheck disable=SC2086 # the globs and the list are split here
	for t in $all; do
		# A program named in wi.only= runs (and fails) even if missing.
		if [ -z "$ONLY" ] && { [ ! -f "$t" ] || [ ! -x "$t" ]; }; then
			continue
		fi
		case ${t##*/} in
		wi_demo|wi_bench) continue ;;
		*_bench) [ -n "$ONLY" ] || continue ;;	# benchmarks: when named
		# timing-dependent under emulation: when named (make
		# check-signature); ranges that an unexplained error of the
		# weighing can leave (make check-inspect)
		wi_signature_runs|wi_inspect_shared) [ -n "$ONLY" ] || continue ;;
		esac
		run_one "$t"
	done
	kmemleak_scan
	;;
demo|bench)
	if [ -x "/selftests/wi_$MODE" ]; then
		# shellcheck disable=SC2086 # word splitting wanted
		run_one "/selftests/wi_$MODE" $ARGS
	else
		log "/selftests/wi_$MODE is not in the initramfs"
		echo "/selftests/wi_$MODE is not in the initramfs" >&3
	fi
	;;
shell)
	log "interactive shell; 'exit' or Ctrl-D powers the VM off"
	setsid cttyhack sh -l || true
	;;
*)
	log "unknown wi.mode=$MODE (expected test|demo|bench|shell)"
	;;
esac

trap - EXIT
finish
