#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bwapd with exactly the privileges bwapd.service gives it (TAP): a user
# of its own (as systemd's DynamicUser= makes one) with the unit's
# AmbientCapabilities=, and nothing else, tunes a process of another
# user, from the command line and as the daemon; without any one of
# those capabilities it fails with a message naming it, and the process
# is left as it was.  The capabilities come from the installed unit
# (/lib/systemd/system/bwapd.service), so the unit and this test cannot
# drift apart.  Needs bwapd, util-linux's setpriv (not busybox's, which
# cannot change user IDs), wi_runas and wi_hold.
#
# On a kernel without per-process weights whose DAMON has weighted
# migration (6.17 and later), with the unit's DAMON drop-in
# (/usr/share/bwapd/systemd/damon.conf): the service runs as root with the
# drop-in's capabilities.
set -u

# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh
comment() { printf '%s\n' "$1" | sed 's/^/# /'; }

UNIT=/lib/systemd/system/bwapd.service
HOLD=/usr/lib/wi/wi_hold
RUNAS=/usr/lib/wi/wi_runas
M=/usr/share/bwapd/model
MODEL=$M/machines/bwap-b.json
WL=$M/workloads/mixed.json
F=/tmp/priv-weights.json
SVC=61184	# the first user ID systemd gives a DynamicUser= service
APP=1000	# the application's user
need /usr/sbin/bwapd /usr/bin/setpriv $UNIT $HOLD $RUNAS $MODEL
machine=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^wi\.topo=//p')
if [ "$machine" != numa4 ]; then
	echo "1..0 # SKIP needs the numa4 machine"
	exit 0
fi
# numactl refuses --weights on a kernel without per-process weights;
# DAMON's migrate actions take weighted destinations from 6.17 on;
# elsewhere bwapd moves the pages itself.
DROPIN=/usr/share/bwapd/systemd/damon.conf
DS=/sys/module/damon_stat/parameters/enabled
ds=
if numactl -w 0 --weights=1 true 2>/dev/null; then
	placement=weights
else
	r=$(uname -r)
	maj=${r%%.*}
	min=${r#*.}
	min=${min%%[!0-9]*}
	if [ ! -d /sys/kernel/mm/damon/admin ] ||
		{ [ "$maj" -lt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -lt 17 ]; }; }; then
		placement=migrate
	else
		placement=damon
	fi
fi
if [ $placement = damon ]; then
	# the drop-in's user (root) for the unit's DynamicUser=
	check "the DAMON drop-in runs the service as root" root "$(sed -n 's/^User=//p' $DROPIN)"
	SVC=0
	# as the admin does on Debian's kernels (damon_stat.enabled=N)
	ds=$(cat $DS 2>/dev/null)
	[ "$ds" = Y ] && echo N >$DS
fi
comment "per-process weights: $placement"

# The unit's capabilities (the drop-in's, which resets them, for DAMON).
U=$UNIT
[ $placement = damon ] && U=$DROPIN
caps=$(sed -n 's/^AmbientCapabilities=\(..*\)/\1/p' $U | tail -n 1)
check "the unit bounds bwapd to the capabilities it gives it" "$caps" \
	"$(sed -n 's/^CapabilityBoundingSet=\(..*\)/\1/p' $U | tail -n 1)"
comment "bwapd.service ($U): $caps"
setpriv_caps() {
	s=-all
	for c in "$@"; do
		s="$s,+$(echo "${c#CAP_}" | tr '[:upper:]' '[:lower:]')"
	done
	echo "$s"
}
# as_service "CAP_A CAP_B" COMMAND...: as the service's user with exactly
# these capabilities (and no others, not even in the bounding set); it
# execs COMMAND, so call it in a subshell: $(...) or &
as_service() {
	# shellcheck disable=SC2086 # a list of capabilities
	set -- "$(setpriv_caps $1)" "$@"
	c=$1
	shift 2
	exec /usr/bin/setpriv --reuid=$SVC --regid=$SVC --clear-groups --inh-caps="$c" \
		--ambient-caps="$c" --bounding-set="$c" -- "$@"
}
# the capabilities in effect for bwapd, as the kernel sees them
got=$(as_service "$caps" grep CapEff /proc/self/status | awk '{ print $2 }')
want=0
for c in $caps; do
	bit=$(case $c in CAP_SYS_PTRACE) echo 19 ;; CAP_SYS_ADMIN) echo 21 ;;
		CAP_SYS_NICE) echo 23 ;; CAP_PERFMON) echo 38 ;; *) echo -1 ;; esac)
	want=$((want | (1 << bit)))
done
check "setpriv gives exactly the unit's capabilities" "$(printf '%016x' $want)" "$got"

# the application: a process of user $1 (default: another user than
# bwapd's) with pages under weighted interleave (interleave where the
# kernel has none: Debian 12's own 6.1)
POLICY=--interleave
[ -d /sys/kernel/mm/mempolicy/weighted_interleave ] && POLICY=--weighted-interleave
app() {
	: >/tmp/priv-hold.out	# not the last one's "ready"
	u=${1:-$APP}
	# wi_runas takes no root: root is root already
	[ "$u" = 0 ] && u= || u="$RUNAS $u"
	$u numactl --cpunodebind=0 $POLICY=0-3 $HOLD 32 \
		>/tmp/priv-hold.out 2>&1 &
	hp=$!
	i=0
	while ! grep -q ready /tmp/priv-hold.out 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# its pages per node (numa_maps' active= and dirty= change as pages age)
pages() { grep 'anon=' /proc/$hp/numa_maps | grep interleave | grep -o 'N[0-9]*=[0-9]*' | tr '\n' ' '; }
# moved CASE: the process's pages are no longer where they were ($before)
moved() {
	if [ "$(pages)" != "$before" ]; then ok "$1"; else not_ok "$1"; fi
}
# the canonical weights, measured as bwapd-profile.service does: by root
bwapd --file $F profile >/dev/null 2>&1
check "canonical weights profiled" 0 $?
tune() {
	as_service "$1" bwapd --file $F --run-dir "" --model "$MODEL" tune --pid $hp \
		--workload "$WL" --max-steps 4 2>&1
}

# --- the unit's capabilities: tuned --------------------------------------------
app
before=$(pages)
out=$(tune "$caps")
rc=$?
comment "$out"
check "unit's capabilities: another user's process is tuned" "0 1" \
	"$rc $(echo "$out" | grep -c 'DWP [0-9.]* after [0-9]* steps')"
moved "unit's capabilities: its pages moved"

# --- without each one: refused, named, nothing changed -------------------------
for c in $caps; do
	kill $hp
	wait $hp 2>/dev/null
	app
	before=$(pages)
	# CAP_SYS_ADMIN, there for the counters at Debian's level 3, also
	# opens another user's /proc/PID/numa_maps: each of the others is
	# taken away with it
	rest=$(echo " $caps " | sed "s/ $c / /")
	[ "$c" = CAP_SYS_ADMIN ] || rest=$(echo " $rest " | sed "s/ CAP_SYS_ADMIN / /")
	out=$(tune "$rest")
	rc=$?
	comment "$out"
	if [ "$c" = CAP_SYS_ADMIN ]; then
		# it is for the counters at perf_event_paranoid 3 (below); the
		# model counts here
		check "without $c: not needed with the model's counters" "0 1" \
			"$rc $(echo "$out" | grep -c 'DWP [0-9.]* after [0-9]* steps')"
		moved "without $c: its pages moved"
		continue
	fi
	if [ $placement = migrate ] && [ "$c" = CAP_SYS_NICE ]; then
		# it sets no process's weights: moving the pages takes ptrace access
		check "without $c: bwapd's own migration does not need it" "0 1" \
			"$rc $(echo "$out" | grep -c 'DWP [0-9.]* after [0-9]* steps')"
		moved "without $c: its pages moved"
		continue
	fi
	check "without $c: refused" 1 $rc
	check "without $c: the message names it" 1 \
		"$(echo "$out" | grep -cE "takes .*$c(, which bwapd lacks|.*; bwapd lacks .*$c)")"
	check "without $c: the process is as it was" "$before" "$(pages)"
done

# --- one's own process: no capability at all -----------------------------------
kill $hp
wait $hp 2>/dev/null
app $SVC
before=$(pages)
out=$(tune "")
rc=$?
comment "$out"
if [ $placement = damon ]; then
	# the service is root, and so is the process, with every capability:
	# more than bwapd has, which ptrace access wants CAP_SYS_PTRACE for
	check "no capabilities: root's process with more capabilities: refused" 1 $rc
	check "no capabilities: root's process with more capabilities: takes CAP_SYS_PTRACE" 1 \
		"$(echo "$out" | grep -c 'takes CAP_SYS_PTRACE, which bwapd lacks')"
else
	check "no capabilities: one's own process is tuned" "0 1" \
		"$rc $(echo "$out" | grep -c 'DWP [0-9.]* after [0-9]* steps')"
	moved "no capabilities: its pages moved"
fi

# --- the daemon with the unit's capabilities ----------------------------------
RD=/tmp/priv-run
rm -rf $RD
mkdir -p $RD
chown $SVC:$SVC $RD	# as systemd's RuntimeDirectory= makes it
echo "wi_hold --workload $WL --max-steps 4" >/tmp/priv-rules
kill $hp
wait $hp 2>/dev/null
app
before=$(pages)
as_service "$caps" bwapd --file $F --model "$MODEL" --run-dir $RD daemon \
	--rules /tmp/priv-rules --scan 0.5 >/tmp/priv-daemon.out 2>&1 &
dp=$!
i=0
while ! bwapd --run-dir $RD status | grep -q "^$hp .* watching " && [ $i -lt 240 ] &&
	kill -0 $dp 2>/dev/null; do
	sleep 0.5
	i=$((i + 1))
done
comment "$(bwapd --run-dir $RD status)"
check "daemon: another user's process is tuned and watched" 1 \
	"$(bwapd --run-dir $RD status | grep -c "^$hp .*wi_hold .* watching ")"
moved "daemon: its pages moved"
kill $dp
wait $dp
check "daemon: stops on SIGTERM" 0 $?
comment "$(sed 's/^/daemon: /' /tmp/priv-daemon.out)"

# --- counters ------------------------------------------------------------------
# Counting the stalls of another user's process (the tuner without
# --model).  The test machine has no PMU, so with the counters allowed
# the kernel answers that it has no such event; at perf_event_paranoid 3
# (Debian's kernels) it refuses first without CAP_SYS_ADMIN, the unit's
# for that, and bwapd says what it takes.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
noadmin=$(echo " $caps " | sed 's/ CAP_SYS_ADMIN / /')
for level in 2 3; do
	echo $level >/proc/sys/kernel/perf_event_paranoid
	out=$(as_service "$caps" bwapd --file $F --run-dir "" tune --pid $hp 2>&1)
	comment "$out"
	check "counters at perf_event_paranoid $level: allowed with the unit's capabilities (no PMU here)" 1 \
		"$(echo "$out" | grep -c 'no stalled-cycles counter')"
done
out=$(as_service "$noadmin" bwapd --file $F --run-dir "" tune --pid $hp 2>&1)
comment "$out"
check "counters at perf_event_paranoid 3 without CAP_SYS_ADMIN: the message names it and the level" 1 \
	"$(echo "$out" | grep -c 'perf_event_paranoid 3 .*takes CAP_SYS_ADMIN, which bwapd lacks; or set kernel.perf_event_paranoid=2, where it takes CAP_SYS_PTRACE')"
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid

kill $hp
wait $hp 2>/dev/null
rm -rf $RD /tmp/priv-rules $F
check "no DAMON state remains" 0 "$(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null || echo 0)"
if [ "$ds" = Y ]; then echo Y >$DS; fi
echo "1..$n"
[ $fail -eq 0 ]
