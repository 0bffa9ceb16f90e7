#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fork's numactl against upstream numactl 2.0.19, both built here from
# the same release tarball: what upstream prints (--show under each
# policy, --hardware, the usage text, error messages) must be the same
# byte for byte, stdout, stderr and exit status, wherever the fork's own
# features are not in use; where they are, the output must be what
# Documentation/numactl.md says. TAP on stdout.
#
# usage: compare.sh [WORKDIR]   (default build/numactl/host-tests)
set -uo pipefail
# shellcheck source=/dev/null # numactl/host-tests/lib.sh, checked on its own
. "$(dirname "$0")/lib.sh"

host_test_setup "${1:-}"
DOC=$REPO_ROOT/Documentation/numactl.md
RUN=$W/run
rm -rf "$RUN"
mkdir -p "$RUN"

# run TREE NAME ARGS...: numactl of TREE (upstream or fork), found as
# "numactl" in PATH so that a nested numactl is the same one and argv[0]
# reads as for an installed numactl; its stdout, stderr and exit status
# in $RUN/TREE.NAME.{out,err,rc}.
run() {
	local t=$1 name=$2
	shift 2
	(cd "$RUN" && PATH=$W/$t/.libs:$PATH LD_LIBRARY_PATH=$W/$t/.libs \
		numactl "$@" >"$RUN/$t.$name.out" 2>"$RUN/$t.$name.err" </dev/null
	 echo $? >"$RUN/$t.$name.rc")
}

same() { # NAME: fork and upstream printed the same
	local x
	for x in out err rc; do
		cmp -s "$RUN/upstream.$1.$x" "$RUN/fork.$1.$x" || return 1
	done
}

# compare ARGS...: one test, numactl ARGS under upstream and the fork.
# The free memory of --hardware may change between two runs: up to five
# tries each.
compare() {
	local name desc="numactl $*" x
	name=$(printf '%s' "$*" | tr -c 'A-Za-z0-9=,.-' _)
	for _ in 1 2 3 4 5; do
		run upstream "$name" "$@"
		run fork "$name" "$@"
		same "$name" && break
	done
	if same "$name"; then
		ok "$desc: as upstream (exit status $(cat "$RUN/fork.$name.rc"))"
	else
		not_ok "$desc: as upstream"
		for x in out err rc; do
			diff -u --label "upstream $x" --label "fork $x" \
				"$RUN/upstream.$name.$x" "$RUN/fork.$name.$x" | comment
		done
	fi
}

echo "TAP version 13"
echo "# upstream numactl $(cd "$W/upstream" && cat VERSION) and the fork ($(grep -c . <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_ROOT/numactl/series")) patches), kernel $(uname -r)"

# --- --show under each policy, and the other reports ----------------------
compare --show
compare -s
compare -i all numactl --show
compare --interleave=0 numactl --show
compare -m 0 numactl --show
compare --membind=all numactl --show
compare -p 0 numactl --show
compare -P 0 numactl --show
compare -l numactl --show
compare -N 0 numactl --show
compare -C 0 numactl --show
compare -a -i all numactl --show
compare -b -m 0 numactl --show
compare --hardware
compare -H --cpu-compress
compare --version

# --- the usage text ----------------------------------------------------------
compare
compare --help
compare -x
compare --no-such-option

# --- errors ------------------------------------------------------------------
compare -i 99 true
compare -m abc true
compare -w 99 true
compare -p 0,0 true
compare -i 0 -m 0 true
compare -w 0 -i 0 true
compare -C 99999 true
compare -N 99 true
compare -i 0 -a true
compare --touch
compare --dump true
compare -t true
compare --length=1x --file "$RUN/f" -i 0
compare -l --file "$RUN/f"
compare /no/such/command
compare -i 0 /no/such/command

# --- upstream's -w where the fork adds nothing -------------------------------
compare -w 0 true
compare --weighted-interleave=all true
# every abbreviation upstream accepts, which --weights must not take
compare --w=0 true
compare --we=0 true
compare --weight=0 true
compare --weighted=0 true

# --- shared memory under the other policies ----------------------------------
compare --length=1M --file "$RUN/shm" -i 0 --dump
compare --length=1M --file "$RUN/shm" -m 0 --touch --dump-nodes
rm -f "$RUN/shm"

# --- what the fork does differently, as documented ---------------------------
# --show under weighted interleave: upstream prints "policy: [6]" and an
# unterminated "preferred node: " line; the fork names the policy and
# prints the next node and the mask as for interleave, nothing else.
# wshow_want NAME: what the fork's -w 0 ... --show must print, from what
# upstream printed.
wshow_want() {
	sed -e 's/^policy: \[6\]$/policy: weighted-interleave/' \
		-e 's/^preferred node: physcpubind:/preferred node: 0 (interleave next)\ninterleavemask: 0 \ninterleavenode: 0\nphyscpubind:/' \
		"$RUN/upstream.$1.out"
}
run upstream wshow -w 0 numactl --show
run fork wshow -w 0 numactl --show
want=$(wshow_want wshow)
if [ "$want" = "$(cat "$RUN/fork.wshow.out")" ] &&
	[ "$(cat "$RUN/fork.wshow.rc")" = 0 ]; then
	ok "numactl -w 0 numactl --show: upstream's lines, the policy named and the interleave lines added"
else
	not_ok "numactl -w 0 numactl --show: upstream's lines, the policy named and the interleave lines added"
	diff -u <(echo "$want") "$RUN/fork.wshow.out" | comment
fi
# --file with -w: weighted, not plain, interleave (--dump shows it)
run upstream wshm --length=1M --file "$RUN/wshm" -w 0 --dump
run fork wshm --length=1M --file "$RUN/wshm" -w 0 --dump
rm -f "$RUN/wshm"
if grep -q ': interleave : 0 $' "$RUN/upstream.wshm.out" &&
	[ "$(sed 's/: interleave : 0 $/: weighted-interleave : 0 /' "$RUN/upstream.wshm.out")" = \
	  "$(cat "$RUN/fork.wshm.out")" ]; then
	ok "numactl --file F -w 0 --dump: weighted-interleave where upstream sets interleave"
else
	not_ok "numactl --file F -w 0 --dump: weighted-interleave where upstream sets interleave"
	paste "$RUN/upstream.wshm.out" "$RUN/fork.wshm.out" | comment
fi

# --show under weighted interleave on kernels with global weights per
# initiator: beside its nodeN files, /sys/kernel/mm/mempolicy/
# weighted_interleave has a per_initiator switch and a directory
# initiatorC for each node C with CPUs, holding nodeN for each node with
# memory.  The fork prints the switch and the rows after interleavenode;
# where the directory has no per_initiator (upstream Linux), nothing
# more.  A tree of that shape, for a machine of two sockets (nodes 0 and
# 1) with a CPU-less memory node each (2 and 3), takes the directory's
# place in a mount namespace of numactl's own.  numactl runs on the
# first CPU the test may use, whose node's row it marks.
WI=/sys/kernel/mm/mempolicy/weighted_interleave
NS=(-m)
[ "$(id -u)" = 0 ] || NS=(-r -m)
# fake_wi DIR [PER_INITIATOR]: the tree, with the switch and the rows if
# PER_INITIATOR is given.
fake_wi() {
	local d=$1 n
	rm -rf "$d"
	mkdir -p "$d"
	for n in 0 1 2 3; do echo 2 >"$d/node$n"; done
	echo true >"$d/auto"
	[ $# -gt 1 ] || return 0
	echo "$2" >"$d/per_initiator"
	mkdir "$d/initiator0" "$d/initiator1"
	for n in 0 1 2 3; do
		echo $((n == 0 ? 6 : n == 2 ? 3 : 1)) >"$d/initiator0/node$n"
		echo $((n == 1 ? 6 : n == 3 ? 3 : 1)) >"$d/initiator1/node$n"
	done
}
# run_wi DIR TREE NAME ARGS...: run, with DIR in place of $WI.
run_wi() {
	local d=$1 t=$2 name=$3
	shift 3
	# shellcheck disable=SC2016 # the inner sh expands them
	(cd "$RUN" && PATH=$W/$t/.libs:$PATH LD_LIBRARY_PATH=$W/$t/.libs \
		unshare "${NS[@]}" sh -c 'mount --bind "$1" "$2" && shift 2 && exec numactl "$@"' \
		sh "$d" "$WI" "$@" >"$RUN/$t.$name.out" 2>"$RUN/$t.$name.err" </dev/null
	 echo $? >"$RUN/$t.$name.rc")
}
# rows_after NAME ROWS: the fork's expected output, ROWS added after
# upstream's output turned into the fork's (wshow_want).
rows_after() {
	wshow_want "$1" | awk -v rows="$2" '{ print } /^interleavenode:/ { print rows }'
}
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
here=$(cd /sys/devices/system/cpu/cpu"$cpu" 2>/dev/null &&
	for n in node[0-9]*; do [ -e "$n" ] && echo "${n#node}"; done)
mark() { [ "$1" = "$here" ] && echo ' (current node)'; }
fake_wi "$RUN/wi-none"
if [ ! -d "$WI" ]; then
	why="this kernel has no weighted interleave"
elif ! why=$(unshare "${NS[@]}" mount --bind "$RUN/wi-none" "$WI" 2>&1); then
	why="no mount namespace here: ${why:-unshare failed}"
else
	why=
fi
for pi in none true false; do
	case $pi in
	none)
		fake_wi "$RUN/wi-$pi"
		desc="numactl -w 0 numactl --show, no per_initiator: nothing added"
		rows= ;;
	*)
		fake_wi "$RUN/wi-$pi" "$pi"
		desc="numactl -w 0 numactl --show, per_initiator $pi: the switch and each initiator's row"
		rows="perinitiator: $pi
initiator0: 0:6 1:1 2:3 3:1$(mark 0)
initiator1: 0:1 1:6 2:1 3:3$(mark 1)" ;;
	esac
	if [ -n "$why" ]; then
		ok "$desc # SKIP $why"
		continue
	fi
	run_wi "$RUN/wi-$pi" upstream "wi-$pi" -w 0 -C "$cpu" numactl --show
	run_wi "$RUN/wi-$pi" fork "wi-$pi" -w 0 -C "$cpu" numactl --show
	if [ -n "$rows" ]; then
		want=$(rows_after "wi-$pi" "$rows")
	else
		want=$(wshow_want "wi-$pi")
	fi
	if [ "$want" = "$(cat "$RUN/fork.wi-$pi.out")" ] &&
		[ "$(cat "$RUN/fork.wi-$pi.rc")" = 0 ] &&
		grep -q '^interleavenode:' "$RUN/fork.wi-$pi.out"; then
		ok "$desc"
	else
		not_ok "$desc"
		diff -u --label want --label fork <(echo "$want") "$RUN/fork.wi-$pi.out" | comment
		comment <"$RUN/fork.wi-$pi.err"
	fi
done
# Under the other policies the rows do not apply: upstream's output.
desc="numactl -i 0 numactl --show, per_initiator true: as upstream"
if [ -n "$why" ]; then
	ok "$desc # SKIP $why"
else
	run_wi "$RUN/wi-true" upstream wi-il -i 0 -C "$cpu" numactl --show
	run_wi "$RUN/wi-true" fork wi-il -i 0 -C "$cpu" numactl --show
	if same wi-il && [ "$(cat "$RUN/fork.wi-il.rc")" = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diff -u --label upstream --label fork "$RUN/upstream.wi-il.out" \
			"$RUN/fork.wi-il.out" | comment
	fi
fi

# --- the messages Documentation/numactl.md quotes ----------------------------
# Each row "| `numactl ARGS` | `MESSAGE` |" of its table of errors: the
# fork prints "numactl: MESSAGE" on stderr, nothing on stdout, exits with
# status 1 and does not run the command. Per-process weights are checked
# on a kernel without them (as this host's), where valid weights are
# refused with the row marked "without set_mempolicy_weights(2)".
taskw=0
run fork probe -w 0 --weights=1 true
[ "$(cat "$RUN/fork.probe.rc")" = 0 ] && taskw=1
rows=0
# shellcheck disable=SC2016 # the backquotes are Markdown's, not the shell's
while IFS=$'\t' read -r cmd msg note; do
	rows=$((rows + 1))
	if [[ $note == *"without set_mempolicy_weights"* ]] && [ "$taskw" = 1 ]; then
		ok "doc: \`$cmd\` # SKIP this kernel has set_mempolicy_weights(2)"
		continue
	fi
	read -r -a args <<<"${cmd#numactl }"
	rm -f "$RUN/ran"
	run fork doc "${args[@]}" touch "$RUN/ran"
	if [ "$(cat "$RUN/fork.doc.rc")" = 1 ] && [ ! -e "$RUN/ran" ] &&
		[ ! -s "$RUN/fork.doc.out" ] &&
		[ "$(cat "$RUN/fork.doc.err")" = "numactl: $msg" ]; then
		ok "doc: \`$cmd\` prints \`$msg\`"
	else
		not_ok "doc: \`$cmd\` prints \`$msg\`"
		{ echo "exit status $(cat "$RUN/fork.doc.rc"), stdout:"; cat "$RUN/fork.doc.out"
		  echo "stderr:"; cat "$RUN/fork.doc.err"; } | comment
	fi
done < <(sed -n 's/^| `\(numactl [^`]*\)` *| `\([^`]*\)` *|\(.*\)|$/\1\t\2\t\3/p' "$DOC")
rm -f /dev/shm/wi-doc
if [ "$rows" -ge 10 ]; then
	ok "doc: $rows messages in the table of $DOC"
else
	not_ok "doc: only $rows messages in the table of $DOC"
fi

tap_end
