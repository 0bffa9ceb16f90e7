#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bwapd in the test machine (TAP): topology and HMAT parsing against the
# emulated numa4 machine, the counter fallback (QEMU has no uncore PMU),
# "bwapd apply" writing the real sysfs weights, and the pages of a
# process under weighted interleave following them.  Needs bwapd (static)
# and numactl on PATH; skips what is missing.
set -u

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "#   expected '$2', got '$3'"; fi; }

W=/sys/kernel/mm/mempolicy/weighted_interleave
F=/tmp/bwapd-weights.json
if ! command -v bwapd >/dev/null; then
	echo "1..0 # SKIP bwapd not in the image"
	exit 0
fi
# The expected figures are those of the numa4 machine (wi.topo=numa4).
machine=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^wi\.topo=//p')
if [ "$machine" != numa4 ] || [ ! -d "$W" ]; then
	echo "1..0 # SKIP needs the numa4 machine and weighted interleave"
	exit 0
fi

# --- topology and HMAT, as sysfs shows them ---------------------------------
topo=$(bwapd topology --json 2>&1)
echo "$topo" | sed 's/^/# /'
check "4 nodes" 1 "$(echo "$topo" | grep -c '"nodes": 4')"
check "node3 SLIT row" 1 "$(echo "$topo" | grep -c '"id": 3, "cpus": 1, .*"distance": \[32, 30, 18, 10\]')"
check "node0 HMAT initiator and bandwidth" 1 \
	"$(echo "$topo" | grep -c '"id": 0,.*"initiators": "0", "read_bandwidth": 24000')"
check "weight files found" 4 "$(echo "$topo" | grep -c '"weight_file": true')"
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
	"$(echo "$json" | grep -c '"minbw": \[24, 20, 12, 8.57143\]')"

# --- apply writes the real sysfs ------------------------------------------------
for i in 0 1 2 3; do echo 1 >$W/node$i; done
out=$(bwapd --file $F apply 0 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check "apply exit status" 0 $rc
check "apply reports 4 changes" 1 "$(echo "$out" | grep -c '4 of 4 weights changed')"
got="$(cat $W/node0) $(cat $W/node1) $(cat $W/node2) $(cat $W/node3)"
check "sysfs weights 22 18 11 8" "22 18 11 8" "$got"
out=$(bwapd --file $F apply 0 2>&1)
check "apply again changes nothing" 1 "$(echo "$out" | grep -c '0 of 4 weights changed')"

# --- the pages of a process follow ------------------------------------------------
if ! command -v numactl >/dev/null || ! numactl --help 2>&1 | grep -q weighted; then
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
for i in 0 1 2 3; do echo 1 >$W/node$i; done

# --- bad input ----------------------------------------------------------------
out=$(bwapd --file $F apply 1,3 2>&1)
rc=$?
check "unknown worker set refused" 1 $rc
check "unknown worker set message" 1 "$(echo "$out" | grep -c 'no canonical weights for workers 1,3')"
check "weights untouched" 1 "$(cat $W/node0)"
rm -f $F

echo "1..$n"
[ $fail -eq 0 ]
