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
export DEBIAN_FRONTEND=noninteractive
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi; }
# until CMD succeeds, or LIMIT seconds have passed; its status
await() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}
diag() { sed 's/^/# /'; }

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
check "the installation started no daemon (no rules yet)" inactive "$(systemctl is-active bwapd.service)"
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
mkdir -p /etc/bwapd
echo 'unit=wi-demo --workload mixed --max-steps 2' >/etc/bwapd/rules
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
since=$(date '+%Y-%m-%d %H:%M:%S')
await 900 settled "$since"
watching
check "the daemon tunes the service's process, then watches it" 0 $?
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
journalctl -u bwapd.service -o json >/tmp/journal.json
# field FIELD EVENT: FIELD of bwapd's EVENT entries about the service's process
field() {
	jq -r --arg e "$2" --arg p "$demo" \
		'select(.BWAPD_EVENT == $e and .BWAPD_PID == $p) | .'"$1" /tmp/journal.json | tail -n 1
}
check "journal: the match, with the process's unit" wi-demo.service "$(field BWAPD_UNIT match)"
check "journal: the match, with its rule" "1 unit=wi-demo" \
	"$(field BWAPD_RULE match) $(field BWAPD_PATTERN match)"
check "journal: the match, at priority info" 6 "$(field PRIORITY match)"
check "journal: the result, with the weights" "$(echo "$weights" | tr ' ' ,)" \
	"$(field BWAPD_WEIGHTS tuned)"
check "journal: the result, with the unit and command" "wi-demo.service wi_hold tuned" \
	"$(field BWAPD_UNIT tuned) $(field BWAPD_COMM tuned) $(field BWAPD_RESULT tuned)"

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
since=$(date '+%Y-%m-%d %H:%M:%S')
systemctl restart bwapd.service
await 900 settled "$since"
watching
check "systemctl restart bwapd: the service is tuned again" 0 $?

# --- purge ------------------------------------------------------------------------
systemctl stop bwapd.service
apt-get purge -y bwapd >/tmp/apt-purge.log 2>&1
check "apt purge bwapd" 0 $?
check "purge: the measured state is gone" no "$([ -e /var/lib/bwapd ] && echo yes || echo no)"
check "purge: the rules an admin wrote stay" yes "$([ -f /etc/bwapd/rules ] && echo yes || echo no)"
check "purge: the units are gone" "" "$(ls /lib/systemd/system/bwapd*.service /usr/lib/systemd/system/bwapd*.service 2>/dev/null)"
systemctl stop wi-demo.service

echo "1..$n"
[ $failed -eq 0 ]
