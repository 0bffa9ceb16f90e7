#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The daemon at scale (a benchmark, run by "make bench-bwapd", not by the
# tests): N real processes (default 256; bwapd_bench.procs=N on the
# kernel command line) with pages under weighted interleave, all named by one rule;
# the daemon tunes every one of them (real weights through
# set_mempolicy_weights(2), real move_pages(2); the stall counts from
# the model, as in bwapd.sh's closed loop), then watches them.  Measured
# once all are watched: the CPU time of the daemon and its tuners over
# a minute of the guest's clock, per tuned process, and their memory per
# tuned process (RSS; its anonymous part, which is each process's own;
# and PSS, which shares the program's pages among the processes that map
# them).  TAP, the figures in "# bench:" lines.
set -u

N=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^bwapd_bench\.procs=//p')
N=${N:-256}
WINDOW=60
HOLD=/usr/lib/wi/wi_hold
M=/usr/share/bwapd/model
MODEL=$M/machines/bwap-b.json
WL=$M/workloads/mixed.json
F=/tmp/bench-weights.json
RD=/tmp/bench-run
RULES=/tmp/bench-rules

# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

need /usr/sbin/bwapd $HOLD $MODEL
if ! numactl -w 0 --weights=1 true 2>/dev/null; then
	echo "1..0 # SKIP kernel without set_mempolicy_weights(2)"
	exit 0
fi
CLK=$(getconf CLK_TCK 2>/dev/null || echo 100)

bwapd --file $F profile >/dev/null 2>&1 || { echo "Bail out! bwapd profile failed"; exit 1; }
echo "wi_hold --workload $WL --max-steps 4" >$RULES
rm -rf $RD
mkdir -p $RD

# the processes, 2 MiB each, on the nodes' CPUs in turn
i=0
while [ $i -lt "$N" ]; do
	numactl --cpunodebind=$((i % 4)) --weighted-interleave=0-3 $HOLD 2 >/dev/null 2>&1 &
	i=$((i + 1))
done

bwapd --file $F --model "$MODEL" --run-dir $RD daemon --rules $RULES --scan 5 \
	>/tmp/bench-daemon.out 2>&1 &
dp=$!

# until every process is tuned and watched (at most an hour of polls)
watching() { bwapd --run-dir $RD status 2>/dev/null | grep -c ' watching '; }
i=0
while [ "$(watching)" -lt "$N" ] && [ $i -lt 720 ] && kill -0 $dp 2>/dev/null; do
	sleep 5
	i=$((i + 1))
done
w=$(watching)
if [ "$w" -eq "$N" ]; then
	ok "the daemon tunes and watches all $N processes"
else
	not_ok "the daemon tunes and watches all $N processes (only $w)"
fi

# the daemon and its tuners
pids() {
	echo $dp
	bwapd --run-dir $RD status --json 2>/dev/null | tr ',' '\n' |
		sed -n 's/.*"tuner": *\([0-9]*\).*/\1/p'
}
# clock ticks (user + system) of the processes listed in $1
ticks() {
	for p in $1; do
		awk '{ print $14 + $15 }' /proc/"$p"/stat 2>/dev/null
	done | awk '{ s += $1 } END { print s + 0 }'
}
list=$(pids | sort -u)
nr=$(echo "$list" | wc -l)
t0=$(ticks "$list")
u0=$(awk '{ print $1 }' /proc/uptime)
sleep "$WINDOW"
t1=$(ticks "$list")
u1=$(awk '{ print $1 }' /proc/uptime)
kb() { # field of smaps_rollup or status, summed over the processes
	for p in $1; do
		awk -v f="$2:" '$1 == f { print $2 }' /proc/"$p"/"$3" 2>/dev/null
	done | awk '{ s += $1 } END { print s + 0 }'
}
rss=$(kb "$list" VmRSS status)
anon=$(kb "$list" RssAnon status)
pss=$(kb "$list" Pss smaps_rollup)
fds=0
for p in $list; do
	fds=$((fds + $(find /proc/"$p"/fd -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)))
done

awk -v n="$N" -v nr="$nr" -v dt="$((t1 - t0))" -v clk="$CLK" -v u0="$u0" -v u1="$u1" \
	-v rss="$rss" -v anon="$anon" -v pss="$pss" -v fds="$fds" 'BEGIN {
	secs = u1 - u0
	cpu = dt / clk / secs * 100 / n
	printf "# bench: processes %d, daemon and tuners %d, window %.1f s\n", n, nr, secs
	printf "# bench: cpu_per_process_percent %.4f (of one core, watching)\n", cpu
	printf "# bench: cpu_seconds_per_process_per_minute %.4f\n", cpu * 60 / 100
	printf "# bench: rss_per_process_kib %.0f\n", rss / n
	printf "# bench: rss_anon_per_process_kib %.0f\n", anon / n
	printf "# bench: pss_per_process_kib %.0f\n", pss / n
	printf "# bench: fds_per_process %.1f\n", fds / n
}'
ok "figures measured over ${WINDOW} s"

kill $dp
wait $dp 2>/dev/null
killall wi_hold 2>/dev/null
wait 2>/dev/null
rm -rf $RD $RULES $F
echo "1..$n"
[ $fail -eq 0 ]
