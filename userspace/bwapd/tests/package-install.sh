#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bwapd packages in a clean Debian 12 root: installed with apt from
# the .debs (their dependencies from Debian's archive), used, measured
# and purged. TAP on stdout.
#
# usage: package-install.sh DEBDIR [WORKDIR]
#
#   DEBDIR   bwapd_*.deb and libbwapd-stable-dev_*.deb (make bwapd-deb)
#   WORKDIR  scratch space (default: DEBDIR/install-test)
#
# The clean root is bootstrapped once with mmdebstrap into ROOT_TARBALL
# (default: DEBDIR/../cache/bookworm-root.tar) and unpacked afresh for
# every run.
#
# Run as root (chroot, mounts). Every mount is undone on exit.
set -uo pipefail
# shellcheck source=/dev/null # scripts/lib.sh, checked on its own
. "$(dirname "$0")/../../../scripts/lib.sh"

DEBS=$(cd "${1:?usage: $0 DEBDIR [WORKDIR]}" && pwd)
WORK=${2:-$DEBS/install-test}
MIRROR=$(debian_mirror)
SUITE=bookworm
# the exposure systemd-analyze may give bwapd.service at most ("OK")
MAX_EXPOSURE=2.5

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi; }
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "needs root (chroot, mount)"
DEB=$(find "$DEBS" -maxdepth 1 -name 'bwapd_*.deb' | head -1)
DEV=$(find "$DEBS" -maxdepth 1 -name 'libbwapd-stable-dev_*.deb' | head -1)
if [ -z "$DEB" ] || [ -z "$DEV" ]; then
	bail "no bwapd packages in $DEBS (make bwapd-deb)"
fi
VERSION=$(dpkg-deb -f "$DEB" Version)

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
TARBALL=${ROOT_TARBALL:-$(dirname "$DEBS")/cache/$SUITE-root.tar}
mkdir -p "$(dirname "$TARBALL")"
ROOT=$WORK/root
if [ ! -s "$TARBALL" ]; then
	command -v mmdebstrap >/dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			mmdebstrap >/dev/null
	# a minimal system as an admin has it: apt, and the helper that
	# enables packaged units (part of every system with systemd)
	mmdebstrap --quiet --format=tar --variant=apt --include=init-system-helpers \
		"$SUITE" "$TARBALL.tmp" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 ||
		bail "mmdebstrap failed (see $WORK/mmdebstrap.log)"
	mv "$TARBALL.tmp" "$TARBALL"
fi

trap 'clean_root_umount "$ROOT"' EXIT
clean_root_enter "$TARBALL" "$ROOT" 2>"$WORK/root.log" || bail "$(cat "$WORK/root.log")"

# Every file of the root but the package manager's own records.
files() {
	(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./tmp -o -path ./var/cache -o -path ./var/log \
		-o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune -o -print | sort)
}

echo "TAP version 13"
in_root apt-get update >"$WORK/update.log" 2>&1 || bail "apt-get update in the root failed (see $WORK/update.log)"
files >"$WORK/before"
cp "$DEB" "$DEV" "$ROOT/tmp/"
if in_root apt-get install -y --no-install-recommends "/tmp/$(basename "$DEB")" \
	"/tmp/$(basename "$DEV")" >"$WORK/install.log" 2>&1; then
	ok "apt installs bwapd $VERSION and libbwapd-stable-dev with their dependencies"
else
	sed 's/^/# /' "$WORK/install.log"
	not_ok "apt installs bwapd $VERSION and libbwapd-stable-dev with their dependencies"
fi

out=$(in_root bwapd --version 2>&1)
check "bwapd --version" "bwapd ${VERSION%-*}" "$(echo "$out" | head -1)"
out=$(in_root bwapd topology 2>&1)
rc=$?
comment() { printf '%s\n' "$1" | sed 's/^/# /'; }
comment "$out"
nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
check "bwapd topology in the installed root: one row per node" "0 $nodes" \
	"$rc $(echo "$out" | grep -c '^[0-9]')"

for u in bwapd.service bwapd-apply.service bwapd-profile.service; do
	if [ -f "$ROOT/lib/systemd/system/$u" ] &&
		[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/$u" ]; then
		ok "$u installed and enabled"
	else
		not_ok "$u installed and enabled"
	fi
done
# shellcheck disable=SC2016 # dpkg-query's format
check "/etc/bwapd/rules, a configuration file (dpkg keeps an admin's edits)" \
	/etc/bwapd/rules "$(in_root dpkg-query -W -f '${Conffiles}' bwapd | awk '{ print $1 }')"
check "state directory /var/lib/bwapd" "755 root" "$(stat -c '%a %U' "$ROOT/var/lib/bwapd" 2>&1)"
if [ -f "$ROOT/usr/share/man/man8/bwapd.8.gz" ]; then
	ok "man page bwapd(8)"
else
	not_ok "man page bwapd(8)"
fi

if grep -q '^SystemCallFilter=~@clock ' \
	"$ROOT/usr/share/bwapd/systemd/weights-syscalls.conf" 2>/dev/null; then
	ok "the seccomp drop-in for units with an allow-list (weights-syscalls.conf)"
else
	not_ok "the seccomp drop-in for units with an allow-list (weights-syscalls.conf)"
fi

if grep -q '^User=root' "$ROOT/usr/share/bwapd/systemd/damon.conf" 2>/dev/null; then
	ok "the DAMON drop-in for kernels without per-process weights (damon.conf)"
else
	not_ok "the DAMON drop-in for kernels without per-process weights (damon.conf)"
fi

# The sandbox of the installed units, as systemd rates it; and the
# daemon's with the DAMON drop-in installed as its documentation says.
# exposure UNIT LABEL
exposure() {
	e=$(systemd-analyze security --offline=yes --root="$ROOT" "$1" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
	echo "# systemd-analyze security: $2 exposure ${e:-?}"
	if awk -v e="$e" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e != "" && e <= m) }'; then
		ok "$2: exposure $e, at most $MAX_EXPOSURE"
	else
		not_ok "$2: exposure ${e:-unknown}, at most $MAX_EXPOSURE"
	fi
}
for u in bwapd.service bwapd-apply.service bwapd-profile.service; do
	exposure "$u" "$u"
done
D=$ROOT/etc/systemd/system/bwapd.service.d
mkdir -p "$D"
cp "$ROOT/usr/share/bwapd/systemd/damon.conf" "$D/"
exposure bwapd.service "bwapd.service with damon.conf"
rm -rf "$D"

# An application links libbwapd-stable with the installed header and
# library (compiled on this host: the root has no compiler).
cat >"$WORK/app.c" <<'EOF'
#include <bwapd_stable.h>
int main(void) { return bwapd_stable() < 0; }
EOF
libdir=$(dirname "$(find "$ROOT/usr/lib" -name libbwapd-stable.a | head -1)")
if gcc -I"$ROOT/usr/include" -o "$WORK/app" "$WORK/app.c" -L"$libdir" -lbwapd-stable 2>"$WORK/app.log" &&
	"$WORK/app"; then
	ok "a program links the installed libbwapd-stable.a and runs"
else
	sed 's/^/# /' "$WORK/app.log"
	not_ok "a program links the installed libbwapd-stable.a and runs"
fi

# What an admin wrote, and what the profile wrote, then purge: the
# package's configuration file goes with it (the admin's rule in it too),
# a file the admin made stays.
echo 'stream --min-mapi 0.002' >>"$ROOT/etc/bwapd/rules"
echo 'BWAPD_WORKERS=0' >"$ROOT/etc/default/bwapd"
echo '{}' >"$ROOT/var/lib/bwapd/canonical-weights.json"
if in_root apt-get purge -y --autoremove bwapd libbwapd-stable-dev >"$WORK/purge.log" 2>&1; then
	ok "apt purges both packages and the libraries they pulled in"
else
	sed 's/^/# /' "$WORK/purge.log"
	not_ok "apt purges both packages and the libraries they pulled in"
fi
files >"$WORK/after"
left=$(comm -13 "$WORK/before" "$WORK/after")
check "after purge only the file the admin made is left" ./etc/default/bwapd "$left"
gone=$(comm -23 "$WORK/before" "$WORK/after")
check "purge removes nothing that was there before" "" "$gone"

echo "1..$n"
[ "$failed" -eq 0 ]
