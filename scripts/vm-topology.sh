#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest check that the kernel sees the NUMA topology QEMU was asked
# for. Runs first in test mode (installed as /wi/checks/topology) and
# prints TAP. The expected topology comes from the kernel command line,
# written by scripts/vm-run.sh from the same table that builds the QEMU
# options:
#
#   wi.topo=NAME          topology name (informational)
#   wi.dist=R0/R1/...     SLIT rows, Ri = "d(i,0),d(i,1),..."
#   wi.cpus=C0/C1/...     cpulist of each node, "-" for a CPU-less node
#   wi.init=I0,I1,...     best (access0) initiator node of each node
set -eu

n=0
fail=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $*"
}
check() {
	# check DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   expected: '$2'"
		echo "#   actual:   '$3'"
	fi
}

topo=unknown dist="" cpus="" init=""
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	wi.topo=*) topo=${arg#wi.topo=} ;;
	wi.dist=*) dist=${arg#wi.dist=} ;;
	wi.cpus=*) cpus=${arg#wi.cpus=} ;;
	wi.init=*) init=${arg#wi.init=} ;;
	esac
done

sysnode=/sys/devices/system/node
echo "# topology '$topo' on $(uname -r)"

# field LIST SEP INDEX: INDEX-th (0-based) element of LIST
field() {
	echo "$1" | awk -v FS="$2" -v i="$3" '{ print $(i + 1) }'
}

nodes=$(echo "$dist" | awk -F/ '{ print NF }')
if [ -z "$dist" ] || [ "$nodes" -lt 1 ]; then
	not_ok "wi.dist= missing from the kernel command line"
	echo "1..$n"
	exit 1
fi

check "nodes online" "0-$((nodes - 1))" "$(cat $sysnode/online 2>/dev/null)"

i=0
while [ $i -lt "$nodes" ]; do
	d=$sysnode/node$i
	want=$(field "$dist" / $i | tr , ' ')
	check "node$i distance" "$want" "$(cat $d/distance 2>/dev/null)"

	want=$(field "$cpus" / $i)
	[ "$want" != - ] || want=""
	check "node$i cpulist" "$want" "$(cat $d/cpulist 2>/dev/null)"

	a=$d/access0/initiators
	want=$(field "$init" , $i)
	if [ -e "$a/node$want" ]; then
		ok "node$i access0 initiator is node$want"
	else
		not_ok "node$i access0 initiator is node$want"
		echo "#   $a: $(cd "$a" 2>/dev/null && echo *)"
	fi
	for attr in read_latency write_latency read_bandwidth write_bandwidth; do
		v=$(cat "$a/$attr" 2>/dev/null || echo missing)
		case $v in
		missing|0|"") not_ok "node$i access0 $attr is set ($v)" ;;
		*) ok "node$i access0 $attr = $v" ;;
		esac
	done
	echo "#   node$i: MemTotal $(awk '/MemTotal/ { print $4, $5 }' $d/meminfo 2>/dev/null)"
	i=$((i + 1))
done

# What the test programs rely on.
check "hugetlbfs on /dev/hugepages" hugetlbfs \
	"$(awk '$2 == "/dev/hugepages" { print $3 }' /proc/mounts)"
check "cgroup2 on /sys/fs/cgroup" cgroup2 \
	"$(awk '$2 == "/sys/fs/cgroup" { print $3 }' /proc/mounts)"
check "tmpfs on /tmp" tmpfs "$(awk '$2 == "/tmp" { print $3 }' /proc/mounts)"
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ]; then
	ok "THP available: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
else
	not_ok "THP available"
fi

echo "1..$n"
[ $fail -eq 0 ]
