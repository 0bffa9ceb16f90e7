#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# numactl --weighted-interleave and --weights, and libnuma's weighted
# interleave calls, in the test machine (TAP). Every case checks where
# the pages really landed (move_pages(2), through wi_pages) or, for bad
# input, the message, the exit status and that the command did not run.
#
# Needs 4 nodes with memory; changes the global weights and puts them back.

T=/usr/lib/numactl-tests/test
PAGES=$T/wi_pages
SYSFS=/sys/kernel/mm/mempolicy/weighted_interleave
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
diag() { sed 's/^/# /'; }

mapfile -t MEMNODES < <(awk -v RS=, -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }' \
	/sys/devices/system/node/has_memory)
if [ ! -d "$SYSFS" ] || [ "${#MEMNODES[@]}" -lt 4 ]; then
	echo "1..0 # SKIP needs weighted interleave and 4 nodes with memory"
	exit 0
fi
N=("${MEMNODES[@]:0:4}")
SET=$(IFS=,; echo "${N[*]}")

declare -A saved
for f in "$SYSFS"/node*; do saved[$f]=$(cat "$f"); done
restore() { for f in "${!saved[@]}"; do echo "${saved[$f]}" > "$f"; done; }
trap restore EXIT
set_global() { # weights for N[0..3]
	local i=0 w
	for w in "$@"; do echo "$w" > "$SYSFS/node${N[i]}"; i=$((i + 1)); done
}
# Per-process weights: the system calls of this project's kernels.
TASKW=1
numactl -w "${N[0]}" --weights=1 true 2>/dev/null || TASKW=0

# count NODE OUTPUT: the page count of NODE in a wi_pages line
count() { tr ' ' '\n' <<<"$2" | awk -F: -v n="$1" '$1 == n { print $2 }'; }

# task_counts DESC OUTPUT TOTAL W0 W1 W2 W3: round-robin by weight, so each
# node is within its weight of its exact share.
task_counts() {
	local desc=$1 out=$2 total=$3 sum=0 i w c want bad=''
	shift 3
	for w in "$@"; do sum=$((sum + w)); done
	for i in 0 1 2 3; do
		w=${*:i+1:1}
		c=$(count "${N[i]}" "$out")
		want=$((total * w / sum))
		if [ -z "$c" ] || [ $((c - want)) -gt "$w" ] || [ $((want - c)) -gt "$w" ]; then
			bad+=" node${N[i]}=$c (want $want +-$w)"
		fi
	done
	if [ -z "$bad" ]; then ok "$desc"; else not_ok "$desc"; fi
	echo "# $out${bad:+ - wrong:$bad}"
}

# offset_counts DESC OUTPUT TOTAL W0 W1 W2 W3: a memory area's policy places
# page i by i mod (sum of weights), the first W0 slots on N[0], and so on:
# exact counts for a region starting at a multiple of the cycle.
offset_counts() {
	local desc=$1 out=$2 total=$3 sum=0 i w c want full rest bad=''
	shift 3
	for w in "$@"; do sum=$((sum + w)); done
	full=$((total / sum)) rest=$((total % sum))
	for i in 0 1 2 3; do
		w=${*:i+1:1}
		want=$((full * w + (rest < w ? rest : w)))
		rest=$((rest > w ? rest - w : 0))
		c=$(count "${N[i]}" "$out")
		[ "$c" = "$want" ] || bad+=" node${N[i]}=$c (want $want)"
	done
	if [ -z "$bad" ]; then ok "$desc"; else not_ok "$desc"; fi
	echo "# $out${bad:+ - wrong:$bad}"
}

# rejects DESC PATTERN NUMACTL-ARGS...: numactl must fail with a message
# matching PATTERN and not run the command.
rejects() {
	local desc=$1 pat=$2 out rc
	shift 2
	rm -f /tmp/ran
	out=$(numactl "$@" touch /tmp/ran 2>&1)
	rc=$?
	if [ "$rc" != 0 ] && [ ! -e /tmp/ran ] && grep -q -- "$pat" <<<"$out"; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "# exit status $rc, command ran: $([ -e /tmp/ran ] && echo yes || echo no)"
	fi
	head -n 3 <<<"$out" | diag
}

# --- global (sysfs) weights --------------------------------------------------
set_global 5 3 1 1
out=$(numactl -w "$SET" "$PAGES" task 1000)
task_counts "-w $SET with sysfs weights 5:3:1:1" "$out" 1000 5 3 1 1
out=$(numactl --weighted-interleave=all "$PAGES" task 1000)
task_counts "--weighted-interleave=all" "$out" 1000 5 3 1 1
out=$(numactl -w "+${N[0]},+${N[1]}" "$PAGES" task 800)
c2=$(count "${N[2]}" "$out") c0=$(count "${N[0]}" "$out")
if [ "$c2" = 0 ] && [ "$c0" -ge 495 ] && [ "$c0" -le 505 ]; then
	ok "-w with cpuset-relative nodes"
else
	not_ok "-w with cpuset-relative nodes"
fi
echo "# -w +${N[0]},+${N[1]}, weights 5:3: $out"
out=$(numactl -w "$SET" numactl --show)
if grep -q '^policy: weighted-interleave$' <<<"$out" &&
	grep -q '^preferred node: [0-9]* (interleave next)$' <<<"$out" &&
	grep -q "^interleavemask: ${N[*]} *\$" <<<"$out" &&
	! grep -q 'weights:' <<<"$out"; then
	ok "--show under -w: mode, next node, mask, no weights lines without --weights"
else
	not_ok "--show under -w"
	diag <<<"$out"
fi
# Kernels with weights per initiator: after interleavenode, what
# per_initiator reads and each initiator's row as sysfs has them, in node
# order; numactl runs on CPU 0, whose node's row it marks.
d="--show under -w: per_initiator and each initiator's row, as sysfs has them"
if [ -f "$SYSFS/per_initiator" ]; then
	here=$(for l in /sys/devices/system/cpu/cpu0/node[0-9]*; do echo "${l##*node}"; done)
	want="perinitiator: $(cat "$SYSFS/per_initiator")"
	rows=0
	inits=()
	for f in "$SYSFS"/initiator[0-9]*; do [ -d "$f" ] && inits[${f##*initiator}]=1; done
	for c in "${!inits[@]}"; do	# an indexed array's keys come in order
		row="initiator$c:"
		nodes=()
		for f in "$SYSFS/initiator$c"/node[0-9]*; do [ -f "$f" ] && nodes[${f##*node}]=1; done
		for m in "${!nodes[@]}"; do row+=" $m:$(cat "$SYSFS/initiator$c/node$m")"; done
		[ "$c" = "$here" ] && row+=" (current node)"
		want+=$'\n'"$row"
		rows=$((rows + 1))
	done
	out=$(numactl -w "$SET" -C 0 numactl --show)
	got=$(sed -n '/^interleavenode:/,/^physcpubind:/p' <<<"$out" | sed '1d;$d')
	if [ "$rows" -gt 0 ] && [ "$got" = "$want" ]; then
		ok "$d"
	else
		not_ok "$d"
		echo "# want:"
		diag <<<"$want"
	fi
	diag <<<"$out"
else
	ok "$d # SKIP no per_initiator"
fi
# Upstream's abbreviations of --weighted-interleave, which --weights
# shares its first letters with.
for o in --w --we --weight; do
	out=$(numactl "$o=$SET" numactl --show 2>&1)
	if grep -q '^policy: weighted-interleave$' <<<"$out"; then
		ok "$o=NODES means --weighted-interleave"
	else
		not_ok "$o=NODES means --weighted-interleave"
		head -n 3 <<<"$out" | diag
	fi
done

# --- shared memory -----------------------------------------------------------
rm -f /dev/shm/wi_file
if numactl --length=4M --file /dev/shm/wi_file -w "$SET" --touch; then
	out=$("$PAGES" file /dev/shm/wi_file)
	# tmpfs biases a file's interleave index by its inode number: the
	# counts are those of a run of 1024 slots starting anywhere.
	task_counts "--file tmpfs with -w: weighted, not plain interleave" "$out" 1024 5 3 1 1
else
	not_ok "numactl --file /dev/shm/wi_file -w $SET --touch failed"
fi
rm -f /dev/shm/wi_file
touch /tmp/wi_key
out=$(numactl --length=4M --shm /tmp/wi_key -w "$SET" --verify 2>&1)
if [ $? = 0 ] && ! grep -q 'wrong policy\|mismatch' <<<"$out"; then
	ok "--shm with -w: the segment has the weighted interleave policy (--verify)"
else
	not_ok "--shm with -w --verify"
	diag <<<"$out"
fi
ipcrm -a 2>/dev/null

# --- libnuma calls, upstream names -------------------------------------------
out=$("$PAGES" alloc 1000 "$SET")
offset_counts "numa_alloc_weighted_interleaved_subset" "$out" 1000 5 3 1 1
out=$("$PAGES" memory 1000 "$SET")
offset_counts "numa_weighted_interleave_memory" "$out" 1000 5 3 1 1
out=$("$PAGES" mask 1000 "$SET")
task_counts "numa_set/get_weighted_interleave_mask" "$out" 1000 5 3 1 1
set_global 1 1 1 1
out=$("$PAGES" allocall 1000)
if [ "${#MEMNODES[@]}" = 4 ]; then
	offset_counts "numa_alloc_weighted_interleaved (all nodes)" "$out" 1000 1 1 1 1
else
	ok "numa_alloc_weighted_interleaved (all nodes)"
	echo "# $out (more than 4 nodes: not counted)"
fi

# --- per-command weights -----------------------------------------------------
# On a kernel without set_mempolicy_weights(2) (upstream Linux) each case
# checks instead that numactl refuses --weights with a clear message.
unsupported() { # DESC
	rejects "$1" 'no per-process weights' -w "$SET" --weights=7,1,1,1
}
d="--weights=7,1,1,1 over global 1:1:1:1 (task policy)"
if [ "$TASKW" = 1 ]; then
	out=$(numactl -w "$SET" --weights=7,1,1,1 "$PAGES" task 1000)
	task_counts "$d" "$out" 1000 7 1 1 1
else unsupported "$d"; fi
d="--weights=${N[0]}:2,${N[1]}:2, others global"
if [ "$TASKW" = 1 ]; then
	out=$(numactl -w "$SET" --weights="${N[0]}:2,${N[1]}:2" "$PAGES" task 600)
	task_counts "$d" "$out" 600 2 2 1 1
else unsupported "$d"; fi
d="--weights=7,1,1,1 with a VMA policy"
if [ "$TASKW" = 1 ]; then
	out=$(numactl -w "$SET" --weights=7,1,1,1 "$PAGES" memory 1000 "$SET")
	offset_counts "$d" "$out" 1000 7 1 1 1
else unsupported "$d"; fi
d="--show with --weights: own weights, then each mask node's, after upstream's lines"
if [ "$TASKW" = 1 ]; then
	out=$(numactl -w "$SET" --weights="${N[0]}:5,${N[1]}:3" numactl --show)
	if grep -q "^taskweights: ${N[0]}:5 ${N[1]}:3\$" <<<"$out" &&
		grep -q '^interleaveweights: 5 3 1 1$' <<<"$out" &&
		[ "$(tail -n 3 <<<"$out" | cut -d: -f1 | tr '\n' ' ')" = "preferred taskweights interleaveweights " ]; then
		ok "$d"
	else
		not_ok "$d"
	fi
	diag <<<"$out"
else unsupported "$d"; fi
d="--show after --weights in one numactl: the weights it set"
if [ "$TASKW" = 1 ]; then
	out=$(numactl -w "$SET" --weights=2,2,2,2 --show)
	if grep -q "^taskweights: ${N[0]}:2 ${N[1]}:2 ${N[2]}:2 ${N[3]}:2\$" <<<"$out"; then
		ok "$d"
	else
		not_ok "$d"
	fi
	diag <<<"$out"
else unsupported "$d"; fi
d="--show without --weights: no weights lines"
out=$(numactl --show)
if ! grep -q 'weights:' <<<"$out"; then
	ok "$d"
else
	not_ok "$d"
	diag <<<"$out"
fi

# --- in a cpuset without node 0 ----------------------------------------------
# numactl -w checks that the kernel has the policy with a probe over the
# nodes the cpuset allows: a probe on a node outside it fails as a kernel
# without the policy would.
cg_root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
d="-w in a cpuset without node 0"
if [ "${MEMNODES[0]}" != 0 ] || [ -z "$cg_root" ] ||
	! grep -qw cpuset "$cg_root/cgroup.controllers" 2>/dev/null; then
	ok "$d # SKIP needs node 0 with memory and the cgroup2 cpuset controller"
else
	enabled=0
	if ! grep -qw cpuset "$cg_root/cgroup.subtree_control"; then
		echo +cpuset > "$cg_root/cgroup.subtree_control" && enabled=1
	fi
	cg=$cg_root/numactl_weighted.$$
	mkdir -p "$cg"
	set_global 5 3 1 1
	if echo "${N[1]},${N[2]},${N[3]}" > "$cg/cpuset.mems"; then
		# a shell that joins the cpuset, then runs numactl there
		out=$(bash -c 'echo $$ > "$1/cgroup.procs" && exec numactl -w "$2" "$3" task 800' \
			_ "$cg" "${N[1]},${N[2]}" "$PAGES" 2>&1)
		# wi_pages lists the nodes the cpuset allows: node 0 is absent
		c1=$(count "${N[1]}" "$out") c2=$(count "${N[2]}" "$out")
		c0=$(count "${N[0]}" "$out") c3=$(count "${N[3]}" "$out")
		if [ "${c0:-0}" = 0 ] && [ "${c3:-0}" = 0 ] &&
			[ "${c1:-0}" -ge 597 ] && [ "${c1:-0}" -le 603 ] &&
			[ "${c2:-0}" -ge 199 ] && [ "${c2:-0}" -le 201 ]; then
			ok "$d: pages on its nodes by weight"
		else
			not_ok "$d: pages on its nodes by weight"
		fi
		echo "# -w ${N[1]},${N[2]}, weights 3:1: $out"
		show=$(bash -c 'echo $$ > "$1/cgroup.procs" && exec numactl -w "$2" numactl --show' \
			_ "$cg" "${N[1]},${N[2]}" 2>&1)
		if grep -q '^policy: weighted-interleave$' <<<"$show" &&
			grep -q "^membind: ${N[1]} ${N[2]} ${N[3]} *\$" <<<"$show"; then
			ok "$d: --show inside it"
		else
			not_ok "$d: --show inside it"
		fi
		diag <<<"$show"
	else
		not_ok "$d: cannot set cpuset.mems of $cg"
	fi
	rmdir "$cg"
	[ "$enabled" = 0 ] || echo -cpuset > "$cg_root/cgroup.subtree_control"
	set_global 1 1 1 1
fi

# --- bad input ---------------------------------------------------------------
rejects "--weights weight 0" 'not in 1-255' -w "$SET" --weights=0,1,1,1
rejects "--weights weight 256" 'not in 1-255' -w "$SET" --weights=256,1,1,1
rejects "--weights weight -1" 'expected a weight' -w "$SET" --weights=-1,1,1,1
rejects "--weights not a number" 'expected a weight' -w "$SET" --weights=abc,1,1,1
rejects "--weights empty" 'empty' -w "$SET" --weights=
rejects "--weights too few" '3 weights for the 4' -w "$SET" --weights=5,3,1
rejects "--weights too many" 'more weights than' -w "$SET" --weights=5,3,1,1,1
rejects "--weights node outside the set" 'not one of the' -w "${N[0]},${N[1]}" --weights="${N[2]}:4"
rejects "--weights node twice" 'given twice' -w "$SET" --weights="${N[0]}:4,${N[0]}:2"
rejects "--weights without -w" 'needs --weighted-interleave' --weights=5,3,1,1
# --weights is checked before --show shows anything, on any kernel
out=$(numactl -w "$SET" --weights="${N[0]}:300" --show 2>&1)
rc=$?
if [ "$rc" = 1 ] && grep -q "weight .300' for node ${N[0]} is not in 1-255" <<<"$out" &&
	! grep -q '^policy:' <<<"$out"; then
	ok "--weights checked before --show"
else
	not_ok "--weights checked before --show (exit status $rc)"
fi
head -n 3 <<<"$out" | diag
rejects "-w with a bad node list" 'is invalid' -w 0-999
rejects "-w twice" 'Conflicting policies' -w "$SET" -i "$SET"
out=$(numactl --length=1M --file /dev/shm/wi_bad -w "$SET" --weights=5,3,1,1 2>&1)
if [ $? != 0 ] && grep -q 'not for shared memory' <<<"$out"; then
	ok "--weights with --file"
else
	not_ok "--weights with --file"
fi
head -n 3 <<<"$out" | diag
rm -f /dev/shm/wi_bad
w=$(cat "$SYSFS/node${N[0]}")
if [ "$w" = 1 ]; then
	ok "global weights untouched by the rejected commands"
else
	not_ok "global weights untouched by the rejected commands"
	echo "# node ${N[0]} has weight $w"
fi

echo "1..$n"
exit "$failed"
