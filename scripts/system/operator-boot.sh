#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The boot after operator.sh (which asked the system test machine to
# reboot): what the installation enabled ran at boot, bwapd-profile.service
# then bwapd-apply.service, with the canonical weights of the CPU nodes'
# worker set in the kernel's weight files; then the package purged.  TAP.
set -u
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

wi=/sys/kernel/mm/mempolicy/weighted_interleave
prop() { systemctl show -P "$2" "$1.service"; }
ran() { [ "$(prop "$1" ExecMainExitTimestampMonotonic)" -gt 0 ] 2>/dev/null; }
echo "# kernel $(uname -r), booted again"

# multi-user.target waits for both (oneshot units it wants); the test
# starts after it, so this only guards against a slower boot
await 600 ran bwapd-apply
for u in bwapd-profile bwapd-apply; do
	journalctl -b -u $u.service -o cat --no-pager | tail -n 12 | diag
	check "$u.service ran at boot" "success 0" "$(prop $u Result) $(prop $u ExecMainStatus)"
done
profiled=$(prop bwapd-profile ExecMainExitTimestampMonotonic)
applied=$(prop bwapd-apply ExecMainStartTimestampMonotonic)
check "bwapd-apply.service started once the profile had ended" yes \
	"$([ "${applied:-0}" -ge "${profiled:-1}" ] && echo yes || echo no)"
check "the profile is this machine's (bwapd show reads it)" 0 \
	"$(bwapd show >/dev/null 2>&1; echo $?)"

workers=$(cat /sys/devices/system/node/has_cpu)
set=$(bwapd show --json | jq -c --arg w "$workers" '.worker_sets[] | select(.workers == $w)')
want=$(echo "$set" | jq -r '.weights | join(" ")')
echo "# worker set $workers: canonical weights $want ($(echo "$set" | jq -r .source))"
got=""
for f in "$wi"/node*; do
	got="$got${got:+ }$(cat "$f")"
done
check "the kernel's weights are the worker set's canonical weights" "$want" "$got"
check "the apply step changed them (bwapd-apply's journal)" yes \
	"$(journalctl -b -u bwapd-apply.service -o cat | grep -q ' changed$' && echo yes || echo no)"
[ ! -f $wi/auto ] || check "the kernel's weights are manual now" false "$(cat $wi/auto)"

# --- purge ------------------------------------------------------------------------
apt-get purge -y bwapd >/tmp/apt-purge.log 2>&1
check "apt purge bwapd" 0 $?
tail -n 5 /tmp/apt-purge.log | diag
check "purge stops the daemon" "inactive " "$(systemctl is-active bwapd.service) $(pgrep -x bwapd)"
check "purge: the measured state is gone" no "$([ -e /var/lib/bwapd ] && echo yes || echo no)"
check "purge: the configuration file is gone" no "$([ -e /etc/bwapd/rules ] && echo yes || echo no)"
check "purge: the file the admin made stays" yes "$([ -f /etc/default/bwapd ] && echo yes || echo no)"
check "purge: the units are gone" "" \
	"$(ls /lib/systemd/system/bwapd*.service /usr/lib/systemd/system/bwapd*.service 2>/dev/null)"
finish
