#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The README's quick start for operators, run as written in the test
# machine (TAP): its commands are read from the README itself (the
# indented lines of its numbered steps), in order, and each must succeed.
# What the test machine cannot do as an operator's machine does is said,
# not hidden:
# - step 1 installs the packages: the image has the same build's
#   numactl and bwapd, and the directory the package makes
#   (userspace/bwapd/debian/bwapd.dirs) is made here;
# - ./app is a program that writes 32 MiB and keeps it (wi_hold, named
#   app); a command that starts it in the foreground (numactl) starts it
#   in the background here, and the next one stops the one before;
# - the emulated machine has no PMU: tune and exec take the stall
#   counts from the model (--model, --workload), computed from where the
#   kernel says the process's pages are, which stay real.
# Runs on a kernel with per-process weights (the quick start's), in the
# numa4 machine, and skips elsewhere; puts the global weights and their
# auto switch back at the end.
set -u

# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

README=/usr/share/doc/bwapd/README
HOLD=/usr/lib/wi/wi_hold
M=/usr/share/bwapd/model
W=/sys/kernel/mm/mempolicy/weighted_interleave
QS=/tmp/quickstart

# The quick start's commands, one a line: the lines indented by eight
# spaces or more between its title and the first line that is not
# indented after its steps began; a line ending in a backslash goes on.
commands() {
	awk '
		/^Quick start for operators/ { on = 1; next }
		!on { next }
		/^ *[0-9]+\. / { steps = 1 }
		steps && /^[^ ]/ && !/^-+$/ { exit }
		/^        / {
			sub(/^ +/, "")
			if (sub(/\\$/, "")) { part = part $0 " "; next }
			print part $0
			part = ""
		}' "$README"
}

if [ ! -f "$README" ] || [ ! -x "$HOLD" ] || ! command -v bwapd >/dev/null ||
   ! command -v numactl >/dev/null; then
	skip "quick start: the README, wi_hold, bwapd or numactl not in the image"
	echo "1..$n"
	exit 0
fi
# once a kernel: on the 4-node machine, not on each of its topologies
if ! grep -q ' wi.topo=numa4' /proc/cmdline; then
	skip "quick start: runs on the numa4 machine"
	echo "1..$n"
	exit 0
fi
if ! numactl -w 0 --weights=1 true 2>/dev/null; then
	skip "quick start: a kernel without per-process weights (the quick start's needs this tree's series)"
	echo "1..$n"
	exit 0
fi

mkdir -p $QS /var/lib/bwapd
cp $HOLD $QS/app
saved=""
for f in "$W"/node*; do
	saved="$saved ${f##*/}=$(cat "$f")"
done
auto=$(cat "$W/auto" 2>/dev/null)
cd $QS || exit 1
app=""

# start_app COMMAND: the application's command in the background, once
# it says it is ready (as long as a loaded machine takes: 300 s at most)
start_app() {
	if [ -n "$app" ]; then
		kill "$app" 2>/dev/null
		wait "$app" 2>/dev/null
	fi
	: >$QS/app.out
	sh -c "$1" >$QS/app.out 2>&1 &
	app=$!
	i=0
	while ! grep -q ready $QS/app.out && [ $i -lt 3000 ] &&
		kill -0 "$app" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q ready $QS/app.out
}

count=$(commands | wc -l)
echo "# $count commands in the README's quick start"
if [ "$count" -ge 10 ]; then
	ok "quick start: its commands read from the README"
else
	not_ok "quick start: its commands read from the README ($count)"
fi
commands >$QS/commands
while IFS= read -r cmd; do
	case $cmd in
	apt-get\ install*)
		skip "quick start: $cmd: the image has the same build's binaries"
		continue ;;
	esac
	# the application: 32 MiB, kept until stopped (or 60 s under exec)
	case $cmd in
	*"bwapd exec -- ./app"*)
		run=$(echo "$cmd" | sed 's|\./app|./app --seconds 60 32|') ;;
	*./app*)
		run=$(echo "$cmd" | sed 's|\./app|./app 32|') ;;
	*)
		run=$cmd ;;
	esac
	case $run in
	bwapd\ tune*|bwapd\ exec*)
		run="bwapd --model $M/machines/bwap-b.json --workload $M/workloads/mixed.json ${run#bwapd }" ;;
	esac
	case $run in
	numactl*./app*)
		if start_app "$run"; then
			ok "quick start: $cmd"
		else
			not_ok "quick start: $cmd"
			sed 's/^/#   /' $QS/app.out
		fi
		continue ;;
	esac
	out=$(sh -c "$run" </dev/null 2>&1)
	rc=$?
	echo "# \$ $run"
	echo "$out" | sed 's/^/#   /' | tail -40
	if [ $rc -eq 0 ]; then
		ok "quick start: $cmd"
	else
		not_ok "quick start: $cmd (exit status $rc)"
	fi
done <$QS/commands

# tune and exec found the application and ended with its weights
if grep -q 'bwapd tune --pid' $QS/commands && [ -n "$app" ]; then
	if kill -0 "$app" 2>/dev/null; then
		ok "quick start: the application ran throughout"
	else
		not_ok "quick start: the application ran throughout"
	fi
fi
[ -n "$app" ] && kill "$app" 2>/dev/null
wait 2>/dev/null
# the weights as they were, then the auto switch (a weight written
# turns it off; turned on, it derives them again)
for s in $saved; do
	echo "${s#*=}" >"$W/${s%%=*}" 2>/dev/null
done
[ -z "$auto" ] || echo "$auto" >"$W/auto" 2>/dev/null
echo "1..$n"
[ "$fail" -eq 0 ]
