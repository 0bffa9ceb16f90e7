#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What placing one process's pages costs, bwapd's own migration against
# DAMON's weighted migration (a benchmark, run by "make bench-placement",
# not by the tests), on Debian's stock 7.3 in one boot whose clock counts
# executed instructions (one CPU).  For each placement, a process holds
# $MIB MiB under weighted interleave with the global weights all 1, and
# bwapd gives it the canonical weights of node 0 (HMAT's, 22:18:11:8) and
# no others (--max-steps 0), then watches it for $WATCH s with nothing
# new to place.  Measured, from /proc/PID/stat of bwapd and of DAMON's
# kdamond (DAMON's scheme runs there, not in bwapd):
# - placing: their CPU time until the tuner says the process is tuned,
#   and the pages moved;
# - keeping in place: their CPU time per second watched (bwapd makes a
#   pass a second), per GiB the process holds, less what watching costs
#   where nothing has to be kept in place: the same run through the
#   global weights, whose new pages follow by themselves.  That is
#   mostly the stall counts, which come from the model here and read
#   numa_maps for them (a real machine's come from perf).
# damon_stat, which Debian's kernel starts and which keeps every other
# kdamond from starting, is off for DAMON's half and back as it was
# afterwards.  TAP, the figures in "# bench:" lines.
set -u

MIB=${WI_PLACE_BENCH_MIB:-256}
WATCH=${WI_PLACE_BENCH_WATCH:-60}
HOLD=/usr/lib/wi/wi_hold
M=/usr/share/bwapd/model
MODEL=$M/machines/bwap-b.json
WL=$M/workloads/mixed.json
F=/tmp/place-bench.json
DS=/sys/module/damon_stat/parameters/enabled
W=/sys/kernel/mm/mempolicy/weighted_interleave
DK=/sys/kernel/mm/damon/admin/kdamonds
CLK=$(getconf CLK_TCK 2>/dev/null || echo 100)
# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

need /usr/sbin/bwapd $HOLD $MODEL
if [ ! -d $DK ]; then
	echo "1..0 # SKIP no DAMON sysfs interface in this kernel"
	exit 0
fi

# a task's CPU time in clock ticks (utime + stime), empty once it is gone
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

bwapd --file $F profile >/dev/null 2>&1
check "canonical weights profiled" 0 $?
ds=$(cat $DS 2>/dev/null)

# run PLACEMENT: one process placed and watched; its figures into
# /tmp/place-PLACEMENT.fig: "moved bwapd_place kdamond_place bwapd_keep
# kdamond_keep" (pages, clock ticks)
run() {
	: >/tmp/place-hold.out
	numactl --cpunodebind=0 --weighted-interleave=0-3 $HOLD "$MIB" \
		>/tmp/place-hold.out 2>&1 &
	hp=$!
	while ! grep -q ready /tmp/place-hold.out 2>/dev/null; do
		sleep 0.1
	done
	bwapd --file $F --run-dir "" --model "$MODEL" tune --pid $hp --workload "$WL" \
		--placement "$1" --max-steps 0 --watch "$WATCH" --json \
		>/tmp/place-bench.out 2>&1 &
	bp=$!
	b=0 k=0 bt='' kt='' kp=''
	while kill -0 $bp 2>/dev/null; do
		t=$(ticks $bp)
		[ -n "$t" ] && b=$t
		[ -n "$kp" ] || kp=$(cat $DK/0/pid 2>/dev/null | grep -v '^-\?[01]$')
		if [ -n "$kp" ]; then
			t=$(ticks "$kp")
			[ -n "$t" ] && k=$t
		fi
		if [ -z "$bt" ] && grep -q '"event": "tuned"' /tmp/place-bench.out; then
			bt=$b
			kt=$k
		fi
		sleep 0.2
	done
	wait $bp
	rc=$?
	kill $hp
	wait $hp 2>/dev/null
	sed "s/^/# $1: /" /tmp/place-bench.out
	check "$1: tuned and watched" "0 1" \
		"$rc $(grep -c "\"event\": \"start\".*\"placement\": \"$1\"" /tmp/place-bench.out)"
	moved=$(sed -n 's/.*"event": "tuned".*"moved": \([0-9]*\).*/\1/p' /tmp/place-bench.out)
	weights=$(sed -n 's/.*"event": "tuned".*"weights": \[ \([0-9, ]*\) \].*/\1/p' /tmp/place-bench.out |
		tr -d ' ' | tr ',' ':')
	echo "${moved:-0} ${bt:-$b} ${kt:-$k} $((b - ${bt:-$b})) $((k - ${kt:-$k}))" \
		>"/tmp/place-$1.fig"
}

g0=$(cat $W/node0 $W/node1 $W/node2 $W/node3 | tr '\n' ' ')
run global
for i in 0 1 2 3; do echo 1 >$W/node$i; done
run migrate
[ "$ds" = Y ] && echo N >$DS
run damon
[ "$ds" = Y ] && echo Y >$DS

echo "$(cat /tmp/place-migrate.fig) $(cat /tmp/place-damon.fig) $(cat /tmp/place-global.fig)" |
	awk -v clk="$CLK" -v mib="$MIB" -v w="$WATCH" -v weights="$weights" '{
	gib = mib / 1024
	# CPU seconds: bwapd and kdamond together, per placement
	mp = ($2 + $3) / clk; mk = ($4 + $5) / clk
	dp = ($7 + $8) / clk; dk = ($9 + $10) / clk
	# watching with nothing to keep in place (the global weights)
	gk = ($14 + $15) / clk
	printf "# bench: %d MiB held, node 0%ss canonical weights (%s), watched %d s\n",
		mib, "\047", weights, w
	printf "# bench: migrate place moved %d cpu_s %.3f (bwapd %.3f) ms_per_1000_pages %.2f\n",
		$1, mp, $2 / clk, ($1 > 0 ? mp * 1e6 / $1 : 0)
	printf "# bench: damon place moved %d cpu_s %.3f (bwapd %.3f, kdamond %.3f) ms_per_1000_pages %.2f\n",
		$6, dp, $7 / clk, $8 / clk, ($6 > 0 ? dp * 1e6 / $6 : 0)
	printf "# bench: watching alone (global weights) cpu_ms_per_s %.2f\n", gk * 1e3 / w
	mk -= gk; dk -= gk
	printf "# bench: migrate keep cpu_ms_per_s %.2f per_gib %.2f (a pass a second; bwapd %.2f)\n",
		mk * 1e3 / w, mk * 1e3 / w / gib, $4 * 1e3 / clk / w
	printf "# bench: damon keep cpu_ms_per_s %.2f per_gib %.2f (bwapd %.2f, kdamond %.2f)\n",
		dk * 1e3 / w, dk * 1e3 / w / gib, $9 * 1e3 / clk / w, $10 * 1e3 / clk / w
	printf "# bench: ratio migrate/damon place %.3f keep %.3f\n",
		(dp > 0 ? mp / dp : 0), (dk > 0 ? mk / dk : 0)
}'
check "damon_stat as it was" "$ds" "$(cat $DS 2>/dev/null)"
for i in 0 1 2 3; do echo "${g0%% *}" >$W/node$i; g0=${g0#* }; done
rm -f $F /tmp/place-bench.out /tmp/place-hold.out /tmp/place-*.fig
echo "1..$n"
[ $fail -eq 0 ]
