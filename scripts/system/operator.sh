#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an operator does first, on a booted Debian 13 under systemd: the
# system test machine runs this as root from its test disk (the
# packages in debs/, wi_hold beside it) and prints TAP.  Every wait is
# for a state, with a limit far above what a loaded host takes.
#
# The emulated CPUs have no counters: /etc/default/bwapd gives the
# shipped units "--model bwap-b" (BWAPD_OPTS), so the stall counts come
# from the model; the pages, the weights, the units and their sandbox
# are the machine's.
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

kernel=$(uname -r)
ours=0
case $kernel in *-wi | *-wi+) ours=1 ;; esac
echo "# kernel $kernel; $(systemctl --version | head -n 1)"
echo "# perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"

# --- installing, as README and bwapd.md say -----------------------------------
if [ $ours = 1 ]; then
	apt-get install -y ./debs/linux-image-*.deb >/tmp/apt-kernel.log 2>&1
	check "apt install ./linux-image-*.deb" 0 $?
	tail -n 5 /tmp/apt-kernel.log | diag
	check "the package is the running kernel's" "/boot/vmlinuz-$kernel" \
		"$(dpkg -L "linux-image-$kernel" 2>/dev/null | grep "^/boot/vmlinuz-")"
fi
apt-get install -y ./debs/libnuma1_*.deb ./debs/numactl_*.deb ./debs/bwapd_*.deb \
	>/tmp/apt.log 2>&1
check "apt install ./libnuma1 ./numactl ./bwapd" 0 $?
tail -n 5 /tmp/apt.log | diag
for p in bwapd numactl libnuma1; do
	check "$p installed" "install ok installed" "$(dpkg-query -W -f '${Status}' $p 2>&1)"
done
check "bwapd.service enabled by the installation" enabled "$(systemctl is-enabled bwapd.service)"
# started by the installation, with the shipped rules (all comments)
ended() { [ "$(systemctl is-active bwapd.service)" = inactive ]; }
await 120 ended
check "the installed daemon found no rule and ended" "inactive success" \
	"$(systemctl is-active bwapd.service) $(systemctl show -P Result bwapd.service)"
# journald takes the lines in its own time
no_rules_logged() {
	journalctl -u bwapd.service -o cat | grep -q '^no rules in /etc/bwapd/rules: nothing to tune'
}
await 120 no_rules_logged
check "the journal says why" 0 $?
for u in bwapd-profile bwapd-apply; do
	check "$u.service enabled, not run by the installation" "enabled inactive" \
		"$(systemctl is-enabled $u.service) $(systemctl is-active $u.service)"
done
check "numactl sees the four nodes" 4 "$(numactl -H | sed -n 's/^available: \([0-9]*\) nodes.*/\1/p')"
check "bwapd topology: four nodes" 4 "$(bwapd topology --json | jq '.nodes | length')"

# --- a service tuned because a rule names its unit ----------------------------
install -D -m 755 wi_hold /usr/local/lib/wi/wi_hold
cat >/etc/systemd/system/wi-demo.service <<'UNIT'
[Unit]
Description=An application under weighted interleave
[Service]
ExecStart=/usr/bin/numactl --cpunodebind=0 --weighted-interleave=0-3 /usr/local/lib/wi/wi_hold 32
UNIT
echo 'unit=wi-demo --workload mixed --max-steps 2' >>/etc/bwapd/rules
echo 'BWAPD_OPTS="--model bwap-b"' >/etc/default/bwapd
systemctl daemon-reload
systemctl start wi-demo.service
check "wi-demo.service started" active "$(systemctl is-active wi-demo.service)"
demo=$(systemctl show -P MainPID wi-demo.service)
await 120 grep -q interleave "/proc/$demo/numa_maps"

systemctl enable --now bwapd.service
check "systemctl enable --now bwapd" active "$(systemctl is-active bwapd.service)"
# tuned: its tuner watches it; or the daemon gave up on it
watching() {
	bwapd status --json 2>/dev/null | jq -e --argjson p "$demo" \
		'.tuners[] | select(.pid == $p and .state == "watching")' >/dev/null
}
given_up() {
	journalctl -u bwapd.service -o json --since "$1" |
		jq -e --arg p "$demo" 'select(.BWAPD_PID == $p and .BWAPD_RESULT == "failed")' >/dev/null
}
settled() { watching || given_up "$1"; }
now() { date '+%Y-%m-%d %H:%M:%S'; }
# retuned SINCE CASE: the service's process is watched again (a wait for
# that, or for the daemon to give up on it after SINCE)
retuned() {
	await 900 settled "$1"
	watching
	check "$2" 0 $?
}
retuned "$(now)" "the daemon tunes the service's process, then watches it"
bwapd status | diag
journalctl -u bwapd.service --no-pager | tail -n 30 | diag
st=$(bwapd status --json | jq -c --argjson p "$demo" '.tuners[] | select(.pid == $p)')
check "bwapd status: the process's unit" wi-demo.service "$(echo "$st" | jq -r .unit)"
if [ $ours = 1 ]; then want=weights; else want=migrate; fi
check "bwapd status: placed by $want" "$want" "$(echo "$st" | jq -r .placement)"
weights=$(echo "$st" | jq -r '.weights | join(" ")')
# shares of the process's interleaved anonymous pages per node, against
# the weights' (a page off per mapping and node, or 2 % of the pages)
in_shares() {
	grep 'anon=' "/proc/$demo/numa_maps" | grep interleave |
		awk -v w="$weights" '
		BEGIN { nw = split(w, W, " "); for (i = 1; i <= nw; i++) s += W[i] }
		{ lines++; for (f = 1; f <= NF; f++) if ($f ~ /^N[0-9]+=/) {
			split(substr($f, 2), a, "="); P[a[1]] += a[2]; T += a[2] } }
		END {
			if (!(T > 0) || !(s > 0)) exit 1
			for (i = 1; i <= nw; i++) {
				d = P[i - 1] - T * W[i] / s
				if (d < 0) d = -d
				printf "# node%d: %d of %d pages, weight %d of %d\n", i - 1, P[i - 1], T, W[i], s
				if (d > lines + 0.02 * T) bad = 1
			}
			exit bad
		}'
}
await 300 in_shares >/dev/null
in_shares
check "the service's pages in its tuned weights' shares ($weights)" 0 $?

# --- the journal ------------------------------------------------------------------
tuned_logged() {
	journalctl -u bwapd.service -o json | jq -e --arg p "$demo" \
		'select(.BWAPD_EVENT == "tuned" and .BWAPD_PID == $p)' >/dev/null
}
await 120 tuned_logged
journalctl -u bwapd.service -o json >/tmp/journal.json
# field FIELD EVENT: FIELD of bwapd's EVENT entries about the service's process
field() {
	jq -r --arg e "$2" --arg p "$demo" \
		'select(.BWAPD_EVENT == $e and .BWAPD_PID == $p) | .'"$1" /tmp/journal.json | tail -n 1
}
check "journal: the match, with the process's unit" wi-demo.service "$(field BWAPD_UNIT match)"
check "journal: the match, with its rule" "$(grep -n '^unit=wi-demo' /etc/bwapd/rules | cut -d: -f1) unit=wi-demo" \
	"$(field BWAPD_RULE match) $(field BWAPD_PATTERN match)"
check "journal: the match, at priority info" 6 "$(field PRIORITY match)"
check "journal: the result, with the weights" "$(echo "$weights" | tr ' ' ,)" \
	"$(field BWAPD_WEIGHTS tuned)"
check "journal: the result, with the unit and command" "wi-demo.service wi_hold tuned" \
	"$(field BWAPD_UNIT tuned) $(field BWAPD_COMM tuned) $(field BWAPD_RESULT tuned)"

# --- the sandbox, as systemd rates it on the running system -------------------
# (the same limit as the package's offline rating, package-install.sh)
for u in bwapd bwapd-profile bwapd-apply; do
	sa=$(systemd-analyze security --no-pager $u.service 2>&1)
	e=$(echo "$sa" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
	echo "$sa" | grep -E '^✗' | diag
	if awk -v e="$e" 'BEGIN { exit !(e != "" && e <= 2.5) }'; then
		ok "systemd-analyze security $u.service: exposure $e, at most 2.5"
	else
		not_ok "systemd-analyze security $u.service: exposure ${e:-unknown}, at most 2.5"
	fi
done

# --- counters in the daemon's sandbox ----------------------------------------
# Counting another process's stalls, as the daemon's tuners do, from a
# unit that is bwapd.service as shipped but for its command (and any
# capabilities added): the emulated CPUs have no PMU, so a tuner the
# kernel lets count finds no stalled-cycles counter, and one it does not
# is refused first (kernel.perf_event_paranoid, Debian's patch at 3,
# which takes CAP_SYS_ADMIN: the unit holds it for that alone).
# The process counted is one of its own (root's, as the service's), as a
# tuner without counters leaves its start weights behind.
# probe [CAP...]: what the tuner said (with these capabilities instead)
numactl --weighted-interleave=0-3 /usr/local/lib/wi/wi_hold 4 >/dev/null &
other=$!
await 120 grep -q interleave "/proc/$other/numa_maps"
# probe_said ID: what the tuner of that run of the unit said of the counters
probe_said() {
	journalctl -o cat _SYSTEMD_INVOCATION_ID="$1" |
		grep -E 'stalled-cycles|perf_event_open|paranoid' | tail -n 1 | grep .
}
probe() {
	local u=/etc/systemd/system/wi-perf-probe.service id
	sed -e "s|^ExecStart=.*|ExecStart=/usr/sbin/bwapd --run-dir '' tune --pid $other|" \
		-e 's|^\[Service\]|[Service]\nType=oneshot|' -e '/^RuntimeDirectory=/d' \
		-e '/^\[Install\]/,$d' /lib/systemd/system/bwapd.service >$u
	if [ $# -gt 0 ]; then
		sed -i -e "s|^CapabilityBoundingSet=.*|CapabilityBoundingSet=$*|" \
			-e "s|^AmbientCapabilities=.*|AmbientCapabilities=$*|" $u
	fi
	systemctl daemon-reload
	systemctl start wi-perf-probe.service 2>/dev/null
	id=$(systemctl show -P InvocationID wi-perf-probe.service)
	await 120 probe_said "$id" >/dev/null
	probe_said "$id"
	rm $u
	systemctl daemon-reload
	systemctl reset-failed wi-perf-probe.service 2>/dev/null
}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
check "bwapd.service may count another process's stalls (perf_event_paranoid $paranoid)" 1 \
	"$(probe | grep -c 'no stalled-cycles counter')"
# CAP_PERFMON, perf's own capability, in its place
out=$(probe CAP_SYS_PTRACE CAP_SYS_NICE CAP_PERFMON)
echo "# with CAP_PERFMON instead of CAP_SYS_ADMIN: $out"
if [ "$paranoid" -ge 3 ]; then
	check "CAP_PERFMON instead of CAP_SYS_ADMIN: refused at perf_event_paranoid 3" 1 \
		"$(echo "$out" | grep -c 'perf_event_paranoid 3 .*takes CAP_SYS_ADMIN, which bwapd lacks')"
else
	check "CAP_PERFMON instead of CAP_SYS_ADMIN: allowed at perf_event_paranoid $paranoid" 1 \
		"$(echo "$out" | grep -c 'no stalled-cycles counter')"
fi
kill $other
wait $other 2>/dev/null

# --- stop, restart ----------------------------------------------------------------
kdamonds() { cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null || echo none; }
systemctl stop bwapd.service
check "systemctl stop bwapd: stopped" inactive "$(systemctl is-active bwapd.service)"
check "the service keeps running" active "$(systemctl is-active wi-demo.service)"
check "no bwapd process left" "" "$(pgrep -x bwapd)"
check "no tuner state left" "" "$(ls /run/bwapd 2>/dev/null)"
in_shares >/dev/null
check "the service keeps its pages in its weights' shares" 0 $?
echo "# kdamonds after stop: $(kdamonds)"
since=$(now)
systemctl restart bwapd.service
retuned "$since" "systemctl restart bwapd: the service is tuned again"

# --- the DAMON drop-in ------------------------------------------------------------
# On a kernel without per-process weights whose DAMON migrates by weights
# (Debian's 7.3), damon.conf lets the daemon place the pages through
# DAMON, as its comment says: with damon_stat off (the boot parameter
# damon_stat.enabled=N; here its parameter at run time), installed as a
# drop-in, the unit reloaded.  Under ProtectKernelTunables=yes.
if [ $ours = 0 ] && [ -d /sys/kernel/mm/damon/admin ]; then
	ds=/sys/module/damon_stat/parameters/enabled
	echo "# damon_stat: $(cat $ds 2>/dev/null || echo none); kdamonds: $(kdamonds)"
	[ ! -f $ds ] || echo N >$ds
	install -D -m 644 /usr/share/bwapd/systemd/damon.conf \
		/etc/systemd/system/bwapd.service.d/damon.conf
	systemctl daemon-reload
	since=$(now)
	systemctl restart bwapd.service
	retuned "$since" "damon.conf: the service is tuned again"
	journalctl -u bwapd.service --since "$since" -o cat | tail -n 12 | diag
	st=$(bwapd status --json | jq -c --argjson p "$demo" '.tuners[] | select(.pid == $p)')
	check "damon.conf: placed by damon" damon "$(echo "$st" | jq -r .placement)"
	check "damon.conf: the daemon runs as root" root "$(ps -o user= -p "$(systemctl show -P MainPID bwapd.service)")"
	weights=$(echo "$st" | jq -r '.weights | join(" ")')
	await 300 in_shares >/dev/null
	in_shares
	check "damon.conf: the service's pages in its tuned weights' shares ($weights)" 0 $?
	check "damon.conf: bwapd's kdamond runs" 1 "$(kdamonds)"
	systemctl stop bwapd.service
	check "damon.conf: systemctl stop leaves no kdamond" 0 "$(kdamonds)"
	in_shares >/dev/null
	check "damon.conf: the service keeps its pages in its weights' shares" 0 $?
	rm -r /etc/systemd/system/bwapd.service.d
	systemctl daemon-reload
	since=$(now)
	systemctl start bwapd.service
	retuned "$since" "without the drop-in: the service is tuned again"
fi

# --- upgrade ----------------------------------------------------------------------
# a newer build of the package over the running daemon and the edited rules
rules=$(md5sum </etc/bwapd/rules)
daemon=$(systemctl show -P MainPID bwapd.service)
since=$(now)
new=$(dpkg-deb -f debs/upgrade/bwapd_*.deb Version)
apt-get install -y ./debs/upgrade/bwapd_*.deb >/tmp/apt-upgrade.log 2>&1
check "apt install ./bwapd_$new (an upgrade)" 0 $?
tail -n 5 /tmp/apt-upgrade.log | diag
check "bwapd $new installed" "$new" "$(dpkg-query -W -f '${Version}' bwapd)"
check "the upgrade keeps the edited /etc/bwapd/rules" "$rules" "$(md5sum </etc/bwapd/rules)"
check "no copy of the package's version beside it" "" "$(ls /etc/bwapd/rules.dpkg-* 2>/dev/null)"
check "the daemon restarted" "active yes" "$(systemctl is-active bwapd.service) \
$([ "$(systemctl show -P MainPID bwapd.service)" != "$daemon" ] && echo yes || echo no)"
retuned "$since" "the restarted daemon tunes the service again"

# --- at the next boot --------------------------------------------------------------
# bwapd-profile.service, then bwapd-apply.service: enabled by the
# installation, not run by it (operator-boot.sh looks at them).  Without
# counters, and without --model, bwapd profile takes this machine's
# firmware description (HMAT), so the apply step writes weights of its own.
systemctl stop wi-demo.service bwapd.service
echo 'BWAPD_OPTS=' >/etc/default/bwapd
check "no profile before the boot" no "$([ -e /var/lib/bwapd/canonical-weights.json ] && echo yes || echo no)"
echo "# the kernel's weights before the boot: $(cat /sys/kernel/mm/mempolicy/weighted_interleave/node* | tr '\n' ' ')"
touch /run/wi-system-test.reboot
finish
