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
run upstream wshow -w 0 numactl --show
run fork wshow -w 0 numactl --show
want=$(sed -e 's/^policy: \[6\]$/policy: weighted-interleave/' \
	-e 's/^preferred node: physcpubind:/preferred node: 0 (interleave next)\ninterleavemask: 0 \ninterleavenode: 0\nphyscpubind:/' \
	"$RUN/upstream.wshow.out")
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
