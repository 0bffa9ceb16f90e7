#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What bwapd inspect's sampling costs a process (a benchmark, run by
# "make bench-inspect", not by the tests): wi_sweep writes every page of
# 16 MiB over and over, for 8 s alone and then for 8 s while bwapd inspect
# --pid samples it, in one boot whose clock counts executed instructions
# (one CPU).
# Measured: the sweeps per second of the process's own CPU time (what
# the faults after each soft-dirty clear cost it), the sweeps per second
# of the clock (the CPU bwapd takes too, on the one CPU), bwapd's CPU
# time per second sampled and the samples per second.  TAP, the figures
# in "# bench:" lines.
set -u

MIB=16
WINDOW=8
SWEEP=/usr/lib/wi/wi_sweep
OUTF=/tmp/wi-sweep.out
# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

need /usr/sbin/bwapd $SWEEP

# wi_sweep's Nth report line (sweeps, CPU seconds, clock)
line() { sed -n '/^sweeps/p' $OUTF | sed -n "$1p"; }
# report now, and wait until the line is there
mark() {
	kill -USR1 $sp
	while [ "$(sed -n '/^sweeps/p' $OUTF | wc -l)" -lt "$1" ]; do
		sleep 0.05
	done
}
# sweeps per CPU second and per second between report lines $1 and $2
rates() {
	echo "$(line "$1") $(line "$2")" | awk '{
		printf "%.1f %.1f\n", ($8 - $2) / ($10 - $4), ($8 - $2) / ($12 - $6) }'
}

rm -f $OUTF
$SWEEP $MIB >$OUTF &
sp=$!
while ! grep -q ready $OUTF 2>/dev/null; do
	sleep 0.1
done
# alone
mark 1
sleep $WINDOW
mark 2
# sampled; bwapd's CPU time from its /proc/PID/stat until it exits
mark 3
bwapd inspect --pid $sp --seconds $WINDOW --json >/tmp/inspect.json 2>&1 &
bp=$!
ticks=0
while kill -0 $bp 2>/dev/null; do
	t=$(awk '{ print $14 + $15 }' /proc/$bp/stat 2>/dev/null)
	[ -n "$t" ] && ticks=$t
	sleep 0.2
done
wait $bp
rc=$?
mark 4
kill $sp
wait $sp 2>/dev/null
if [ $rc -eq 0 ]; then
	ok "bwapd inspect sampled the process"
else
	not_ok "bwapd inspect sampled the process: $(cat /tmp/inspect.json)"
fi
sed 's/^/# /' $OUTF
samples=$(sed -n 's/.*"samples": \([0-9]*\), "lost".*/\1/p' /tmp/inspect.json)
secs=$(sed -n 's/.*"seconds": \([0-9.]*\)[,} ].*/\1/p' /tmp/inspect.json)
CLK=$(getconf CLK_TCK 2>/dev/null || echo 100)

echo "$(rates 1 2) $(rates 3 4)" | awk -v pages=$((MIB * 256)) -v ticks="$ticks" \
	-v clk="$CLK" -v samples="${samples:-0}" -v secs="${secs:-1}" '{
	printf "# bench: %d pages written over and over, slices of 0.05 s, %.1f s sampled\n",
		pages, secs
	printf "# bench: sweeps_per_cpu_s alone %.1f sampled %.1f ratio %.3f\n",
		$1, $3, $3 / $1
	printf "# bench: sweeps_per_s alone %.1f sampled %.1f ratio %.3f (one CPU, bwapd on it too)\n",
		$2, $4, $4 / $2
	printf "# bench: bwapd_cpu_s_per_s %.4f\n", ticks / clk / secs
	printf "# bench: samples_per_s %.0f (%.2f per page and slice)\n",
		samples / secs, samples / secs * 0.05 / pages
}'
rm -f $OUTF /tmp/inspect.json
ok "figures measured"
echo "1..$n"
[ $fail -eq 0 ]
