#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bwapd in the test machine (TAP): topology and HMAT parsing against the
# emulated numa4 machine, the counter fallback (QEMU has no uncore PMU),
# counters from PMUs of a real machine's shape on real perf fds,
# "bwapd apply" writing the real sysfs weights, and the pages of a
# process under weighted interleave following them.  Needs bwapd (static)
# and numactl on PATH; skips what is missing.  On a kernel without
# weighted interleave (Debian 12's own 6.1), the processes tuned run
# under interleave, and what needs the global weights is refused.
set -u

# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

W=/sys/kernel/mm/mempolicy/weighted_interleave
F=/tmp/bwapd-weights.json
if ! command -v bwapd >/dev/null; then
	echo "1..0 # SKIP bwapd not in the image"
	exit 0
fi
# The expected figures are those of the numa4 machine (wi.topo=numa4).
machine=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^wi\.topo=//p')
if [ "$machine" != numa4 ]; then
	echo "1..0 # SKIP needs the numa4 machine"
	exit 0
fi
# the kernel's weighted interleave: its global weights, and the policy
# the processes tuned here run under (interleave where it has none)
if [ -d "$W" ]; then
	wi=1
	POLICY=--weighted-interleave
	nwf=4
else
	wi=
	POLICY=--interleave
	nwf=0
	echo "# no weighted interleave in this kernel: processes under interleave"
fi
# the global weights back to 1 (where the kernel has them)
reset_globals() {
	[ -n "$wi" ] || return 0
	for i in 0 1 2 3; do echo 1 >$W/node$i; done
}

# --- topology and HMAT, as sysfs shows them ---------------------------------
topo=$(bwapd topology --json 2>&1)
echo "$topo" | sed 's/^/# /'
check "4 nodes" 1 "$(echo "$topo" | grep -c '"nodes": 4')"
check "node3 SLIT row" 1 "$(echo "$topo" | grep -c '"id": 3, "cpus": 1, .*"distance": \[ 32, 30, 18, 10 \]')"
check "node0 HMAT initiator and bandwidth" 1 \
	"$(echo "$topo" | grep -c '"id": 0,.*"initiators": "0", "read_bandwidth": 24000')"
check "weight files found" $nwf "$(echo "$topo" | grep -o '"weight_file": true' | grep -c .)"
check "counters unavailable, fallback hmat" 1 \
	"$(echo "$topo" | grep -c '"available": false, "source": "no memory controller PMU.*"fallback": "hmat"')"

# --- profile: the fallback, labelled ----------------------------------------
out=$(bwapd --file $F profile 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check "profile exit status" 0 $rc
check "profile says counters are unavailable" 1 \
	"$(echo "$out" | grep -c 'counters: unavailable: no memory controller PMU')"
check "profile says the weights come from hmat" 1 \
	"$(echo "$out" | grep -c 'weights from hmat (fallback)')"
json=$(bwapd --file $F show --json 0)
check "worker 0: 24000/20000/12000/8571 MB/s" 1 \
	"$(echo "$json" | grep -c '"minbw": \[ 24, 20, 12, 8.57143 \]')"

# --- counters: PMUs of a real machine's shape on real perf fds ---------------
# QEMU has no uncore PMU.  The fixture is a 4-socket Skylake-SP's
# uncore_imc_0..5 with one CPU per package in the cpumask (the guest's four
# packages), backed by the kernel's software PMU (cpu-clock); the
# benchmark runs on the guest's real four nodes.
FIX=/usr/share/bwapd/tests/pmu-fixture.sh
P=/tmp/bwapd-pmus
FC=/tmp/bwapd-counters.json
if [ ! -f $FIX ]; then
	skip "pmu-fixture.sh not in the image"
else
	rm -rf $P
	sh $FIX --standin $P skx 0,1,2,3
	out=$(bwapd --pmu-root $P --file $FC profile --seconds 1 --max-size 1 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "profile on fixture PMUs exit status" 0 $rc
	check "every instance on every package: 48 counters on nodes 0-3" 1 \
		"$(echo "$out" | grep -c 'counters: 6 PMUs uncore_imc_0..uncore_imc_5, 48 counters, nodes 0-3')"
	check "no fallback" 0 "$(echo "$out" | grep -c 'fallback')"
	json=$(bwapd --file $FC show --json 0)
	echo "$json" | sed 's/^/# /'
	check "worker 0's weights from counters" 1 "$(echo "$json" | grep -c '"source": "counters"')"
	# the machine's model, measured by the benchmark on the four nodes:
	# 60 phases, and a pair of routes over each link the latencies show
	phases=$(echo "$out" | sed -n "s/.*the machine's model: measured in \([0-9]*\) phases in all.*/\1/p")
	echo "# phases: ${phases:-none}"
	check "the machine's model: measured, 60 phases or more" 1 \
		"$([ "${phases:-0}" -ge 60 ] && echo 1 || echo 0)"
	check "the machine's model: no fallback to the firmware's" 0 \
		"$(echo "$out" | grep -c "the firmware's description is written instead")"
	# the 16 routes' read and write bandwidth and latency at least
	check "the machine's model: in the file, its figures measured" 1 \
		"$([ "$(grep -c '"measured"' $FC)" -ge 48 ] && echo 1 || echo 0)"
	rm -rf $P $FC
fi

# --- apply writes the real sysfs ------------------------------------------------
if [ -z "$wi" ]; then
	out=$(bwapd --file $F apply 0 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "apply without weighted interleave: refused, saying why" "1 1" \
		"$rc $(echo "$out" | grep -c "node 0 has no $W/node0 (kernel without weighted interleave?); nothing written")"
	for c in "apply reports 4 changes" "sysfs weights 22 18 11 8" \
		"apply again changes nothing" "show: the kernel's weights beside bwapd's"; do
		skip "$c: no weighted interleave"
	done
else
reset_globals
out=$(bwapd --file $F apply 0 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check "apply exit status" 0 $rc
check "apply reports 4 changes" 1 "$(echo "$out" | grep -c '4 of 4 weights changed')"
got="$(cat $W/node0) $(cat $W/node1) $(cat $W/node2) $(cat $W/node3)"
check "sysfs weights 22 18 11 8" "22 18 11 8" "$got"
out=$(bwapd --file $F apply 0 2>&1)
check "apply again changes nothing" 1 "$(echo "$out" | grep -c '0 of 4 weights changed')"
json=$(bwapd --file $F show --json 0)
check "show: the kernel's weights beside bwapd's" 1 \
	"$(echo "$json" | grep -c '"kernel": { "weights": \[ 22, 18, 11, 8 \]')"
fi

# --- apply --per-initiator: a row per CPU node, from its own set -------------------
# The profile above has every node's set alone (from the HMAT's bandwidth
# from that node, which differs from node to node on numa4).
if [ ! -f $W/per_initiator ]; then
	out=$(bwapd --file $F apply --per-initiator 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "apply --per-initiator without rows: refused, saying why" "1 1" \
		"$rc $(echo "$out" | grep -c 'per_initiator')"
	skip "apply --per-initiator: each row from its node's set: no rows per initiator"
else
	out=$(bwapd --file $F apply --per-initiator 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "apply --per-initiator exit status" 0 $rc
	check "apply --per-initiator: per_initiator on" true "$(cat $W/per_initiator)"
	bad=0
	for c in 0 1 2 3; do
		# the set's own weights, after its "workers" (not the kernel's)
		want=$(bwapd --file $F show --json $c |
			grep -o "\"workers\": \"$c\"[^]]*\"weights\": \[[0-9, ]*\]" |
			sed 's/.*\[//; s/\]//; s/ //g')
		got="$(cat $W/initiator$c/node0),$(cat $W/initiator$c/node1),$(cat $W/initiator$c/node2),$(cat $W/initiator$c/node3)"
		echo "# row $c: $got, the set $c alone: $want"
		[ -n "$want" ] && [ "$got" = "$want" ] || bad=$((bad + 1))
	done
	check "apply --per-initiator: each row from its node's set" 0 $bad
	# back to the default row alone (apply 0's weights, manual mode)
	echo false >$W/per_initiator
	for c in 0 1 2 3; do for m in 0 1 2 3; do echo 0 >$W/initiator$c/node$m; done; done
fi

# --- the pages of a process follow ------------------------------------------------
if [ -z "$wi" ]; then
	for i in 0 1 2 3; do
		skip "node$i holds its weight's share of the pages: no weighted interleave"
	done
elif ! command -v numactl >/dev/null || ! numactl --help 2>&1 | grep -q weighted; then
	skip "numactl with weighted interleave not in the image"
else
	shmem() { awk '/Shmem:/ { print $4 }' /sys/devices/system/node/node"$1"/meminfo; }
	for i in 0 1 2 3; do eval "b$i=$(shmem $i)"; done
	numactl --weighted-interleave=0-3 dd if=/dev/zero of=/tmp/bwapd-pages bs=1M count=118 2>/dev/null
	tot=0
	for i in 0 1 2 3; do
		eval "d$i=\$(( \$(shmem $i) - b$i ))"
		eval "tot=\$(( tot + d$i ))"
	done
	# shares in per mille, against 22:18:11:8 of 59
	for i in 0 1 2 3; do
		d=$(eval "echo \$d$i")
		w=$(cat $W/node$i)
		share=$((d * 1000 / tot))
		want=$((w * 1000 / 59))
		echo "# node$i: $d kB of $tot kB, $share per mille (weights: $want)"
		if [ $((share - want)) -le 20 ] && [ $((want - share)) -le 20 ]; then
			ok "node$i holds its weight's share of the pages"
		else
			not_ok "node$i holds its weight's share of the pages"
		fi
	done
	rm -f /tmp/bwapd-pages
fi
reset_globals

# --- the tuner in a closed loop -------------------------------------------------
# A real process with real pages: bwapd sets its weights with
# set_mempolicy_weights(2) and moves its pages with move_pages(2); only
# the stall counts come from the model (machine B, the mixed workload),
# computed from where the kernel says the pages are.
M=/usr/share/bwapd/model
HOLD=/usr/lib/wi/wi_hold
MODEL=$M/machines/bwap-b.json
WL=$M/workloads/mixed.json
# the DWP and the weights of the last line of a --json tuning log
last_dwp() { grep '"step"' | tail -1 | sed 's/.*"dwp": \([0-9.]*\).*/\1/'; }
last_weights() { grep '"step"' | tail -1 | sed 's/.*"weights": \[\([0-9, ]*\)\].*/\1/' | tr -d ','; }
# hold [--grow G] MIB: a process with MIB of memory under weighted
# interleave (interleave where the kernel has none), once it says it is ready (a wait for a state: as long as a
# loaded machine takes, 300 s times the machine's speed factor at most)
hold() {
	: >/tmp/hold.out	# not the last one's "ready"
	numactl --cpunodebind=0 $POLICY=0-3 $HOLD "$@" >/tmp/hold.out 2>&1 &
	hp=$!
	i=0
	hold_limit=$(awk -v f="${WI_SPEED_FACTOR:-1}" 'BEGIN { if (!(f >= 1)) f = 1; printf "%d", 3000 * f }')
	while ! grep -q ready /tmp/hold.out 2>/dev/null && [ $i -lt "$hold_limit" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q ready /tmp/hold.out 2>/dev/null ||
		echo "# hold $*: process $hp not ready after $((hold_limit / 10)) s: $(cat /tmp/hold.out)"
}
# await_tuned FILE PID: until bwapd's output FILE says a tuning ended, or
# process PID is gone (300 s at most)
await_tuned() {
	i=0
	while ! grep -q 'DWP [0-9.]* after [0-9]* steps' "$1" && [ $i -lt 3000 ] &&
		kill -0 "$2" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
# await_watched RUN_DIR LIMIT: until bwapd status in RUN_DIR says process
# $hp is watched (LIMIT half seconds at most), then the status
await_watched() {
	i=0
	while ! bwapd --run-dir "$1" status | grep -q "^$hp .* watching " && [ $i -lt "$2" ]; do
		sleep 0.5
		i=$((i + 1))
	done
	bwapd --run-dir "$1" status | sed 's/^/# /'
}
# placed PID: where the interleaved anonymous pages of process PID lie
# (weighted or not),
# mapping by mapping: its address and policy, and its pages per node.
# Not the kernel's own bookkeeping beside them (active=, the LRU list a
# page is on, changes as the kernel ages pages, with nothing moved).
placed() {
	grep 'anon=' "/proc/$1/numa_maps" | grep interleave |
		awk '{ printf "%s %s %s", $1, $2, $3
		       for (i = 4; i <= NF; i++) if ($i ~ /^N[0-9]+=/) printf " %s", $i
		       print "" }'
}
# pages_follow LABEL W0 W1 W2 W3: the interleaved anonymous pages of
# process $hp, in all its mappings, lie on the nodes in these weights' shares: within
# 1 %, or, where $follow is damon or migrate, within what their layout
# leaves (runs of the weights' sum along each mapping: half the sum in
# pages, or the mapping's pages where it has fewer, and 0.1 %) if that
# is more
pages_follow() {
	label=$1
	shift
	set -- "$@" 0 0 0 0
	# anonymous memory, as the placements steer it: not files, not the stack
	lines=$(grep 'anon=' "/proc/$hp/numa_maps" | grep interleave | grep -v ' file=\| stack')
	echo "$lines" | sort -t= -k2 -n | tail -1 | sed 's/^/# /'
	wsum=$(($1 + $2 + $3 + $4))
	[ "$wsum" -gt 0 ] || wsum=1
	damon=0
	case ${follow:-} in damon | migrate) damon=1 ;; esac
	for i in 0 1 2 3; do
		eval "w=\$$((i + 1))"
		# the counts in a comment: the case's name is the same on every kernel
		if echo "$lines" | awk -v i="$i" -v w="$w" -v s="$wsum" -v damon="$damon" '
			{
				t = 0; p = 0
				for (f = 1; f <= NF; f++) {
					if ($f !~ /^N[0-9]+=/)
						continue
					split(substr($f, 2), a, "=")
					t += a[2]
					if (a[1] + 0 == i)
						p = a[2]
				}
				T += t; P += p; slack += t < s / 2 ? t : s / 2; lines++
			}
			END {
				printf "# node%d: %d of %d pages in %d mappings, weight %d of %d\n", i, P, T, lines, w, s
				if (!(T > 0))
					exit 1
				d = P / T - w / s; tol = 0.01
				if (damon && slack / T + 0.001 > tol)
					tol = slack / T + 0.001
				exit !(d <= tol && d >= -tol)
			}'; then
			ok "$label: node$i holds its final weight's share"
		else
			not_ok "$label: node$i holds its final weight's share"
		fi
	done
}
# pages_settle LABEL W0 W1 W2 W3: pages_follow, once the pages are in
# those shares or after 300 s: pages faulted during bwapd's last pass are
# placed by its next while it follows the process (a wait for a state)
pages_settle() {
	settle=$1
	shift
	i=0
	while pages_follow wait "$@" | grep -q '^not ok' && [ $i -lt 600 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	pages_follow "$settle" "$@"
}
# numactl refuses --weights on a kernel without per-process weights.
task_weights() {
	numactl -w 0 --weights=1 true 2>/dev/null
}
# DAMON's migrate actions take weighted destinations from Linux 6.17 on
# (Documentation/admin-guide/mm/damon/usage.rst, "schemes/<N>/dests/").
DK=/sys/kernel/mm/damon/admin/kdamonds
damon_dests() {
	r=$(uname -r)
	maj=${r%%.*}
	min=${r#*.}
	min=${min%%[!0-9]*}
	[ -d $DK ] && { [ "$maj" -gt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -ge 17 ]; }; }
}
# the kdamonds in DAMON's sysfs interface (none where it has none)
kdamonds() { cat $DK/nr_kdamonds 2>/dev/null || echo 0; }
globals() { cat $W/node0 $W/node1 $W/node2 $W/node3 2>&1 | tr '\n' ' '; }
DS=/sys/module/damon_stat/parameters/enabled
if [ ! -x $HOLD ] || [ ! -f $M/machines/bwap-b.json ]; then
	skip "wi_hold or the model presets not in the image"
else
	# how the process gets weights of its own: the kernel's, DAMON's
	# (once damon_stat is off, below), or bwapd moves its pages itself
	if task_weights; then
		placement=weights
	elif damon_dests; then
		placement=damon
	else
		placement=migrate
	fi
	follow=$placement
	echo "# per-process weights: $placement"
	ok "tuner: per-process weights"
	# Debian's kernels run DAMON_STAT, whose kdamond keeps every other one
	# from starting: bwapd leaves it and moves the pages itself, saying
	# why; the pages end in their shares all the same
	ds=$(cat $DS 2>/dev/null)
	if [ $placement = damon ] && [ "$ds" = Y ]; then
		hold 16
		k0=$(kdamonds)
		out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --json 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		check "tuner: DAMON taken by one of its modules: bwapd moves the pages itself, saying why" "0 1 1" \
			"$rc $(echo "$out" | grep -c 'bwapd moves its pages to its weights itself.*DAMON runs for damon_stat, which keeps every other kdamond from starting') $(echo "$out" | grep '"event": "start"' | grep -c '"placement": "migrate"')"
		check "tuner: DAMON taken by one of its modules: left running" "Y $k0" "$(cat $DS) $(kdamonds)"
		follow=migrate
		# shellcheck disable=SC2046 # four numbers
		pages_follow "tuner: damon_stat on" $(echo "$out" | last_weights)
		kill $hp
		wait $hp 2>/dev/null
		# exec and the daemon the same way: a program started by exec,
		# and a process a rule names, each in its final weights' shares
		bwapd --file $F --model "$MODEL" --run-dir "" exec --workload "$WL" --max-steps 2 \
			--json --wait-stable -- $HOLD --stable --seconds 300 16 \
			>/tmp/exec-ds.out 2>/tmp/exec-ds.err &
		ep=$!
		i=0
		while ! grep -q '"event": "tuned"' /tmp/exec-ds.out && [ $i -lt 3000 ] &&
			kill -0 $ep 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
		sed 's/^/# exec: /' /tmp/exec-ds.out /tmp/exec-ds.err
		hp=$(sed -n 's/.*"target": "\([0-9]*\)", "event": "start".*/\1/p' /tmp/exec-ds.out)
		check "tuner: damon_stat on: exec: bwapd moves the pages itself" 1 \
			"$(grep '"event": "start"' /tmp/exec-ds.out | grep -c '"placement": "migrate"')"
		# the pages faulted while the last setting was placed follow by
		# the next pass, a second later at most while bwapd follows the
		# program (a wait for that state, 300 s at most)
		# shellcheck disable=SC2046 # four numbers
		pages_settle "tuner: damon_stat on: exec" $(last_weights </tmp/exec-ds.out)
		[ -n "$hp" ] && kill "$hp"
		wait $ep
		echo "wi_hold --workload $WL --max-steps 2" >/tmp/bwapd-rules-ds
		RD=/tmp/bwapd-run-ds
		bwapd --file $F --model "$MODEL" --run-dir $RD daemon --rules /tmp/bwapd-rules-ds \
			--scan 0.5 >/tmp/bwapd-daemon-ds.out 2>&1 &
		dp=$!
		hold 16
		await_watched $RD 600
		check "tuner: damon_stat on: daemon: bwapd moves the pages itself" 1 \
			"$(bwapd --run-dir $RD status | grep -c "^$hp .* watching .* migrate  *[^ ]* *$")"
		dw=$(bwapd --run-dir $RD status | awk -v p="$hp" '$1 == p { print $10 }' | tr ',' ' ')
		# as for exec: pages faulted during the last pass, placed by the
		# next (a wait for that state, 300 s at most)
		# shellcheck disable=SC2086 # four numbers
		pages_settle "tuner: damon_stat on: daemon" $dw
		kill $dp
		wait $dp
		kill $hp
		wait $hp 2>/dev/null
		check "tuner: damon_stat on: left running, no kdamond of bwapd's" "Y $k0" "$(cat $DS) $(kdamonds)"
		follow=$placement
		echo N >$DS
	else
		skip "tuner: DAMON taken by one of its modules: no DAMON_STAT running"
		skip "tuner: DAMON taken by one of its modules: left running"
		for c in "" "exec: " "daemon: "; do
			for i in 0 1 2 3; do
				skip "tuner: damon_stat on: ${c}node$i holds its final weight's share: no DAMON_STAT running"
			done
		done
		for c in "exec: bwapd moves the pages itself" "daemon: bwapd moves the pages itself" \
			"left running, no kdamond of bwapd's"; do
			skip "tuner: damon_stat on: $c: no DAMON_STAT running"
		done
	fi
	json=$(bwapd --file $F show --json 0)
	echo "$json" | grep '"kernel"' | sed 's/^/# /'
	check "show: says what gives one process its weights" 1 \
		"$(echo "$json" | grep -c "\"placement\": \"$placement\"")"
	# what the tuner finds on the model alone, from the same canonical weights
	canon=$(bwapd --file $F show --json 0 | sed -n 's/.*"weights": \[ \([0-9, ]*\) \].*/\1/p' | sed 's/, /,/g')
	echo "# canonical weights of workers 0: $canon"
	model=$(bwapd --model "$MODEL" --run-dir "" tune --workload "$WL" --workers 0 \
		--canonical "$canon" --predict-with $F --json 2>&1)
	echo "$model" | sed 's/^/# model: /'
	mdwp=$(echo "$model" | last_dwp)

	# another process under weighted interleave, which must stay as it is
	# (on nodes 1-3: node 0, with the kernel's memory, fills up at DWP 1,
	# where move_pages(2) then warns of the failed allocations)
	: >/tmp/other.out
	numactl --cpunodebind=1 $POLICY=1-3 $HOLD 16 >/tmp/other.out 2>&1 &
	op=$!
	hold 48
	other=$(placed $op)
	g0=$(globals)
	k0=$(kdamonds)
	t0=$(cut -d' ' -f1 /proc/uptime)
	out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --json 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	# a figure for the record, not a test: the guest's clock under emulation
	echo "# tuned in $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s of the guest's time ($placement)"
	check "tuner: tune --pid exit status" 0 $rc
	check "tuner: predicts with the model in the file, not with --model" 1 \
		"$(echo "$out" | grep -c "predicting with the model in $F")"
	check "tuner: tune --pid tunes the process, or says why not and offers --global" 0 $rc
	check "tuner: says how the process gets its weights" 1 \
		"$(echo "$out" | grep '"event": "start"' | grep -c "\"placement\": \"$placement\"")"
	check "tuner: the pages moved are counted" 1 \
		"$(echo "$out" | grep '"event": "tuned"' | grep -c '"moved": [1-9]')"
	# where DAMON moves the pages, each step gives its scheme's statistics
	# (as damo shows them): the bytes it applied are the pages moved
	if [ $placement = damon ]; then
		check "tuner: each step gives DAMON's statistics, its bytes the pages moved" 1 \
			"$(echo "$out" | grep '"step"' | awk '
				/"damon": \{/ {
					n++; a = $0; m = $0
					sub(/.*"applied_bytes": /, "", a); sub(/[,} ].*/, "", a)
					sub(/.*"moved": /, "", m); sub(/,.*/, "", m)
					if (int(a / 4096) != m + 0) bad++
					if (a > 0) moved++
				}
				END { print (n > 0 && moved > 0 && !bad) ? 1 : 0 }')"
	else
		check "tuner: no DAMON statistics where DAMON does not place" 0 \
			"$(echo "$out" | grep -c '"damon": {')"
	fi
	check "tuner: another process under weighted interleave is not moved" "$other" \
		"$(placed $op)"
	check "tuner: the global weights are untouched" "$g0" "$(globals)"
	check "tuner: no DAMON state remains" "$k0" "$(kdamonds)"
	kill $op
	wait $op 2>/dev/null
	rdwp=$(echo "$out" | last_dwp)
	# within two of the search's fine steps (0.025), 0.85 against 0.90
	# included: the difference counted in steps, not in floating point
	if awk -v a="$rdwp" -v b="$mdwp" 'BEGIN { d = (a - b) / 0.025; exit !(a != "" && d < 2.001 && d > -2.001) }'; then
		ok "tuner: the process ends at the model's DWP ($rdwp vs $mdwp)"
	else
		not_ok "tuner: the process ends at the model's DWP ($rdwp vs $mdwp)"
	fi
	# its pages, node by node, against the final weights
	# shellcheck disable=SC2046 # four numbers
	pages_follow "tuner" $(echo "$out" | last_weights)

	# another user's process: refused with the reason, nothing changed
	if [ -x /usr/lib/wi/wi_runas ]; then
		before=$(placed $hp)
		out=$(/usr/lib/wi/wi_runas 65534 bwapd --run-dir "" --canonical "$canon" \
			--model "$MODEL" tune --pid $hp --workload "$WL" 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		check "tuner: another user's process: exit status" 1 $rc
		check "tuner: another user's process: says why" 1 \
			"$(echo "$out" | grep -c 'numa_maps: Permission denied: another user.s process takes CAP_SYS_PTRACE, which bwapd lacks; nothing changed')"
		check "tuner: another user's process: pages untouched" "$before" \
			"$(placed $hp)"
	else
		skip "wi_runas not in the image"
	fi

	# no counters (no PMU in the test machine): a clear error, DWP 0 weights
	out=$(bwapd --file $F tune --pid $hp 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "tuner: without counters: exit status" 1 $rc
	check "tuner: without counters: says why" 1 "$(echo "$out" | grep -c 'no stalled-cycles counter')"
	check "tuner: without counters: keeps DWP 0" 1 "$(echo "$out" | grep -c 'keeps weights of DWP 0.000')"
	kill $hp
	wait $hp 2>/dev/null

	# the target killed while it is tuned: once the first step is logged
	# (a step lasts 1 s here, and the tuning two steps or more)
	hold 48
	bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" \
		--period 1 >/tmp/killed.out 2>&1 &
	bp=$!
	i=0
	while ! grep -q 'step  0' /tmp/killed.out && kill -0 $bp 2>/dev/null &&
		[ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill $hp
	wait $bp
	rc=$?
	out=$(cat /tmp/killed.out)
	echo "$out" | sed 's/^/# /'
	check "tuner: target killed: exit status" 0 $rc
	check "tuner: target killed: noticed" 1 "$(echo "$out" | grep -c "process $hp exited while it was tuned")"
	wait
	check "tuner: target killed: no DAMON state remains" "$k0" "$(kdamonds)"

	# --rate paces the moves (move_pages(2) in paced batches, or DAMON's
	# quota, which also counts the pages walked and found in place): the
	# steps still end with the pages in their shares (where the quota
	# stops DAMON, up to half the weights' sum of pages may be left off,
	# which pages_follow allows); bwapd logs each look at the pages
	# (debug), for a run where they end out of their shares
	hold 32
	out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --max-steps 1 \
		--rate 2000 --json --log-level debug 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "tuner: --rate 2000: exit status" 0 $rc
	check "tuner: --rate 2000: the moves were not cut short" 0 "$(echo "$out" | grep -c 'stopped with')"
	# shellcheck disable=SC2046 # four numbers
	pages_follow "tuner: --rate 2000" $(echo "$out" | last_weights)
	kill $hp
	wait $hp 2>/dev/null

	# another program's kdamond: bwapd leaves it alone, says so and moves
	# the pages itself; asked for DAMON, it refuses
	if [ $placement = damon ]; then
		hold 16
		echo 1 >$DK/nr_kdamonds
		out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --max-steps 2 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		check "tuner: another program's kdamond: bwapd moves the pages itself, saying so" "0 1" \
			"$rc $(echo "$out" | grep -c "bwapd moves its pages to its weights itself.*in use by another program (1 kdamond in $DK)")"
		out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --placement damon 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		check "tuner: another program's kdamond: --placement damon refused, saying so" "1 1" \
			"$rc $(echo "$out" | grep -c "in use by another program (1 kdamond in $DK)")"
		check "tuner: another program's kdamond: left as it was" "1 off" \
			"$(kdamonds) $(cat $DK/0/state)"
		echo 0 >$DK/nr_kdamonds
		kill $hp
		wait $hp 2>/dev/null
	else
		skip "tuner: another program's kdamond: bwapd moves the pages itself, saying so: no DAMON here"
		skip "tuner: another program's kdamond: --placement damon refused, saying so: no DAMON here"
		skip "tuner: another program's kdamond: left as it was: no DAMON here"
	fi

	# two processes tuned at once share bwapd's kdamond, each with its own
	# scheme; a tuner killed outright (SIGKILL) leaves its keeper to take
	# its process out, SIGINT stops the other
	if [ $placement = damon ]; then
		hold 32
		h1=$hp
		hold 32
		h2=$hp
		bwapd --file $F --model "$MODEL" tune --pid $h1 --workload "$WL" --max-steps 2 \
			--watch 0 --json >/tmp/two1.out 2>&1 &
		b1=$!
		bwapd --file $F --model "$MODEL" tune --pid $h2 --workload "$WL" --max-steps 4 \
			--watch 0 --json >/tmp/two2.out 2>&1 &
		b2=$!
		i=0
		while { ! grep -q '"event": "tuned"' /tmp/two1.out ||
			! grep -q '"event": "tuned"' /tmp/two2.out; } && [ $i -lt 3000 ] &&
			kill -0 $b1 2>/dev/null && kill -0 $b2 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
		sed 's/^/# 1: /' /tmp/two1.out
		sed 's/^/# 2: /' /tmp/two2.out
		check "two processes: one kdamond, a target each" "1 2" \
			"$(kdamonds) $(cat $DK/0/contexts/0/targets/nr_targets 2>/dev/null)"
		hp=$h1
		# shellcheck disable=SC2046 # four numbers
		pages_follow "two processes: the first" $(last_weights </tmp/two1.out)
		hp=$h2
		# shellcheck disable=SC2046 # four numbers
		pages_follow "two processes: the second" $(last_weights </tmp/two2.out)
		kill -KILL $b1
		wait $b1 2>/dev/null
		i=0
		while [ "$(cat $DK/0/contexts/0/targets/nr_targets 2>/dev/null)" != 1 ] && [ $i -lt 300 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		check "two processes: the first tuner killed outright: its process taken out" \
			"1 1 $h2" "$(kdamonds) $(cat $DK/0/contexts/0/targets/nr_targets) $(cat $DK/0/contexts/0/targets/0/pid_target)"
		kill -INT $b2
		wait $b2
		check "two processes: SIGINT stops the other tuner" 130 $?
		check "two processes: no DAMON state remains" "$k0" "$(kdamonds)"
		kill $h1 $h2
		wait $h1 $h2 2>/dev/null
	else
		for c in "one kdamond, a target each" "the first tuner killed outright: its process taken out" \
			"SIGINT stops the other tuner" "no DAMON state remains"; do
			skip "two processes: $c: per-process weights"
		done
	fi

	# bwapd stopped with SIGTERM while it follows the process: what it
	# set up to place the pages goes with it, the pages stay
	hold 32
	: >/tmp/follow.out
	bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --watch 0 \
		>/tmp/follow.out 2>&1 &
	bp=$!
	await_tuned /tmp/follow.out $bp
	if [ $placement = damon ]; then following=$((k0 + 1)); else following=$k0; fi
	check "tuner: SIGTERM: DAMON in use while it follows" "$following" "$(kdamonds)"
	kill -TERM $bp
	wait $bp
	rc=$?
	sed 's/^/# /' /tmp/follow.out
	check "tuner: SIGTERM: exit status" 143 $rc
	check "tuner: SIGTERM: no DAMON state remains" "$k0" "$(kdamonds)"
	kill $hp
	wait $hp 2>/dev/null

	# bwapd killed outright (SIGKILL) while it follows the process: the
	# process runs on with its pages in their shares, the global weights
	# as they were; where DAMON places, the tuner's keeper takes the
	# process out of DAMON (a wait for that state, 30 s at most)
	hold 32
	g0=$(globals)
	# emptied here: the background job truncates it in its own time, and
	# until then the last case's "after N steps" would end the wait
	: >/tmp/follow.out
	bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" --watch 0 \
		>/tmp/follow.out 2>&1 &
	bp=$!
	await_tuned /tmp/follow.out $bp
	kill -KILL $bp
	wait $bp
	check "tuner: SIGKILL: killed" 137 $?
	i=0
	while [ "$(kdamonds)" != "$k0" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sed 's/^/# /' /tmp/follow.out
	check "tuner: SIGKILL: the process runs on" 0 "$(kill -0 $hp; echo $?)"
	# shellcheck disable=SC2046 # four numbers
	pages_follow "tuner: SIGKILL" $(sed -n 's/.*DWP [0-9.]* after [0-9]* steps.*; weights \([0-9,]*\).*/\1/p' \
		/tmp/follow.out | tr ',' ' ')
	check "tuner: SIGKILL: the global weights untouched" "$g0" "$(globals)"
	check "tuner: SIGKILL: no DAMON state remains" "$k0" "$(kdamonds)"
	kill $hp
	wait $hp 2>/dev/null

	# exec: a program started under weighted interleave, tuned once it
	# says it is steady (bwapd_stable()), followed until it exits: it is
	# told to exit (SIGUSR1) once bwapd says it is tuned, and after 300 s
	# at the latest
	numactl --cpunodebind=0 bwapd --file $F --model "$MODEL" exec --workload "$WL" \
		--log-level debug --wait-stable -- $HOLD --stable --seconds 300 32 \
		>/tmp/exec.out 2>&1 &
	ep=$!
	await_tuned /tmp/exec.out $ep
	killall -USR1 wi_hold
	told=$?
	wait $ep
	rc=$?
	out=$(cat /tmp/exec.out)
	echo "$out" | sed 's/^/# /'
	check "tuner: exec: says it is tuned while the program still runs" 0 $told
	check "tuner: exec: the program's exit status" 0 $rc
	check "tuner: exec: waited for bwapd_stable()" 1 "$(echo "$out" | grep -c 'wi_hold is stable$')"
	check "tuner: exec: tuned on node 0" 1 "$(echo "$out" | grep -c 'on workers 0 (model)')"
	check "tuner: exec: tuned" 1 "$(echo "$out" | grep -c 'DWP [0-9.]* after [0-9]* steps')"
	check "tuner: exec: no DAMON state remains" "$k0" "$(kdamonds)"
	# the placement chosen once, before the program starts: DAMON's
	# probe (a kdamond made and removed) runs once where DAMON places,
	# and once at most where the kernel has a DAMON to look at
	probes=$(echo "$out" | grep -c 'DAMON: a kdamond made and removed')
	if [ $placement = damon ] || [ "$probes" -gt 1 ]; then
		check "tuner: exec: the placement chosen once" 1 "$probes"
	else
		ok "tuner: exec: the placement chosen once ($probes DAMON probes)"
	fi

	# the daemon: a rule names wi_hold; its tuner shows in bwapd status
	echo "wi_hold --workload $WL --max-steps 4" >/tmp/bwapd-rules
	RD=/tmp/bwapd-run
	bwapd --file $F --model "$MODEL" --run-dir $RD daemon --rules /tmp/bwapd-rules --scan 0.5 \
		>/tmp/bwapd-daemon.out 2>&1 &
	dp=$!
	hold --grow 16 32
	await_watched $RD 120
	check "tuner: daemon: the process is tuned and watched" 1 "$(bwapd --run-dir $RD status | grep -c "^$hp .*wi_hold .* watching ")"
	check "tuner: daemon: status says how it is placed" 1 \
		"$(bwapd --run-dir $RD status | grep -c "^$hp .* watching .* $placement  *[^ ]* *$")"
	dw=$(bwapd --run-dir $RD status | awk -v p="$hp" '$1 == p { print $10 }' | tr ',' ' ')
	# shellcheck disable=SC2086 # four numbers
	pages_follow "tuner: daemon" $dw
	# pages the process faults after the tuning: its own weights place
	# them, or bwapd's next pass (DAMON's) while it watches (a wait for
	# that state, 300 s at most)
	kill -USR2 $hp
	i=0
	while ! grep -q grown /tmp/hold.out && [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "tuner: daemon: the process faulted 16 MiB more" 1 "$(grep -c grown /tmp/hold.out)"
	# shellcheck disable=SC2086 # four numbers
	pages_settle "tuner: daemon: pages faulted after the tuning" $dw
	kill $dp
	wait $dp
	check "tuner: daemon: stops on SIGTERM" 0 $?
	sed 's/^/# daemon: /' /tmp/bwapd-daemon.out
	check "tuner: daemon: matched the rule" 1 "$(grep -c "process $hp (wi_hold, [^)]*) matches rule 1" /tmp/bwapd-daemon.out)"
	check "tuner: daemon: its tuners are gone from the status" 0 "$(bwapd --run-dir $RD status | grep -c "^$hp ")"
	check "tuner: daemon: no DAMON state remains" "$k0" "$(kdamonds)"
	kill $hp
	wait $hp 2>/dev/null

	# a process that is gone
	out=$(bwapd --file $F --model "$MODEL" tune --pid $hp --workload "$WL" 2>&1)
	check "tuner: gone process refused" 1 $?
	check "tuner: gone process message" 1 "$(echo "$out" | grep -c "process $hp: No such process")"

	# exec under a seccomp allow-list shaped like a container's, which
	# answers ENOSYS for the weights calls (helpers/wi_seccomp.c): bwapd
	# says the filter blocks them, not the kernel, and the command does
	# not run; with the two numbers allowed it runs
	SC=/usr/lib/wi/wi_seccomp
	if [ $placement != weights ]; then
		skip "tuner: exec under a seccomp allow-list: the kernel has no weights calls"
	elif [ -x $SC ]; then
		out=$($SC ENOSYS bwapd --file $F --model "$MODEL" --run-dir "" exec \
			--workload "$WL" -- /bin/echo started 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		check "tuner: exec under a seccomp allow-list: refused" 127 $rc
		check "tuner: exec under a seccomp allow-list: names the filter" 1 \
			"$(echo "$out" | grep -c 'blocked by the seccomp filter this process runs under (ENOSYS from the filter; the kernel has the call)')"
		check "tuner: exec under a seccomp allow-list: the command did not run" 0 \
			"$(echo "$out" | grep -c '^started$')"
		out=$($SC ENOSYS --allow-weights bwapd --file $F --model "$MODEL" --run-dir "" \
			exec --workload "$WL" -- /bin/echo started 2>&1)
		echo "$out" | sed 's/^/# /'
		check "tuner: exec with the weights calls allowed: the command runs" 1 \
			"$(echo "$out" | grep -c '^started$')"
		check "tuner: exec with the weights calls allowed: no word of the filter" 0 \
			"$(echo "$out" | grep -c 'seccomp')"
	else
		skip "tuner: exec under a seccomp allow-list: no $SC"
	fi
	# DAMON_STAT as the kernel started it
	if [ "$ds" = Y ]; then echo Y >$DS; fi
fi

# --- tuning through the global weights (--global), on every kernel ------------
# For kernels without per-process weights: the process's pages follow
# the global weights bwapd tunes, and bwapd says what that means for
# every other process.  Without weighted interleave there are none:
# refused, the process as it was.
if [ -x $HOLD ] && [ -f $MODEL ] && [ -z "$wi" ]; then
	hold 32
	before=$(placed $hp)
	out=$(bwapd --file $F --model "$MODEL" tune --global --pid $hp --workload "$WL" \
		--max-steps 4 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "global: without weighted interleave: refused, saying why" "1 1" \
		"$rc $(echo "$out" | grep -c "process $hp: the kernel has no weighted interleave (no $W), so it has no global weights to tune (--placement migrate moves its pages instead); nothing changed")"
	check "global: without weighted interleave: the process as it was" "$before" "$(placed $hp)"
	kill $hp
	wait $hp 2>/dev/null
elif [ -x $HOLD ] && [ -f $MODEL ]; then
	hold 32
	# with the rows per initiator on, its private pages follow its row
	if [ -f $W/per_initiator ]; then
		before=$(placed $hp)
		echo true >$W/per_initiator
		out=$(bwapd --file $F --model "$MODEL" tune --global --pid $hp \
			--workload "$WL" --max-steps 4 2>&1)
		rc=$?
		echo false >$W/per_initiator
		echo "$out" | sed 's/^/# /'
		check "global: with the rows per initiator on: refused, saying why" "1 1" \
			"$rc $(echo "$out" | grep -c "process $hp: the kernel's rows per initiator are on ($W/per_initiator), so its private pages follow the row of its CPU's node, not the global weights --global tunes (write false there, or give it weights of its own); nothing changed")"
		check "global: with the rows per initiator on: the process as it was" "$before" "$(placed $hp)"
	else
		skip "global: with the rows per initiator on: no rows per initiator"
		skip "global: with the rows per initiator on: the process as it was"
	fi
	out=$(bwapd --file $F --model "$MODEL" tune --global --pid $hp --workload "$WL" \
		--max-steps 4 --json 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	check "global: tune --global exit status" 0 $rc
	check "global: says every other process follows the weights" 1 \
		"$(echo "$out" | grep -c 'through the global weights: every process under weighted interleave without weights of its own follows them')"
	# shellcheck disable=SC2046 # four numbers
	set -- $(echo "$out" | last_weights)
	check "global: the sysfs weights are the tuned ones" "$*" \
		"$(cat $W/node0) $(cat $W/node1) $(cat $W/node2) $(cat $W/node3)"
	follow=global
	# shellcheck disable=SC2046 # four numbers
	pages_follow "global" $(echo "$out" | last_weights)
	kill $hp
	wait $hp 2>/dev/null
	out=$(/usr/lib/wi/wi_runas 65534 bwapd --file $F --model "$MODEL" --run-dir "" \
		exec --global --workload "$WL" -- true 2>&1)
	echo "$out" | sed 's/^/# /'
	check "global: as another user than root: refused, saying why" 1 \
		"$(echo "$out" | grep -c 'node0: Permission denied (the global weights are root.s)')"
	out=$(bwapd --file $F --model "$MODEL" tune --global --workload "$WL" 2>&1)
	check "global: without --pid: usage error" "2 1" \
		"$? $(echo "$out" | grep -c -- '--global tunes a process: it needs --pid')"
	reset_globals
else
	skip "wi_hold or the model presets not in the image"
fi

# --- bad input ----------------------------------------------------------------
out=$(bwapd --file $F apply 1,3 2>&1)
rc=$?
check "unknown worker set refused" 1 $rc
check "unknown worker set message" 1 "$(echo "$out" | grep -c 'no canonical weights for workers 1,3')"
if [ -n "$wi" ]; then
	check "weights untouched" 1 "$(cat $W/node0)"
else
	skip "weights untouched: no weighted interleave"
fi
rm -f $F

echo "1..$n"
[ $fail -eq 0 ]
