#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fork's Debian packages in a clean Debian root of their suite (12 or
# 13): installed over Debian's own numactl, used, then offered a Debian
# libnuma1 of a higher version that lacks the fork's calls. A program that uses them (built
# here against the fork, its dependencies computed by dpkg-shlibdeps from
# the fork's symbols file) must keep working: apt keeps the fork's
# libnuma1 on "apt-get upgrade" and refuses to replace it without removing
# that program. TAP on stdout.
#
# usage: package.sh DEBDIR [WORKDIR]
#
#   DEBDIR   numactl_*.deb, libnuma1_*.deb, libnuma-dev_*.deb (make numactl-deb)
#   WORKDIR  scratch space (default: DEBDIR/install-test)
#
# The suite is the packages' (~deb12: bookworm, ~deb13: trixie). The clean
# root is bootstrapped with mmdebstrap into ROOT_TARBALL (default
# build/cache/SUITE-root.tar; for bookworm the one bwapd's package test
# makes, the same way), unpacked afresh for every run.
#
# The Debian libnuma1 of a higher version is Debian 13's 2.0.19-1, fetched
# with apt and re-versioned 2.0.19-2: it stands for a later Debian revision
# that apt would take. For Debian 12 its libc6 dependency is lowered to
# Debian 12's; its library needs glibc 2.38, so it would not run there: it
# must never be installed.
#
# Run as root (chroot, mounts). Every mount is undone on exit.
set -uo pipefail
# shellcheck source=/dev/null # numactl/host-tests/lib.sh, checked on its own
. "$(dirname "$0")/lib.sh"

DEBS=$(cd "${1:?usage: $0 DEBDIR [WORKDIR]}" && pwd)
WORK=${2:-$DEBS/install-test}
MIRROR=$(debian_mirror)

[ "$(id -u)" -eq 0 ] || bail "needs root (chroot, mount)"
LIB=$(find "$DEBS" -maxdepth 1 -name 'libnuma1_*.deb' | head -1)
DEV=$(find "$DEBS" -maxdepth 1 -name 'libnuma-dev_*.deb' | head -1)
CLI=$(find "$DEBS" -maxdepth 1 -name 'numactl_*.deb' | head -1)
if [ -z "$LIB" ] || [ -z "$DEV" ] || [ -z "$CLI" ]; then
	bail "no numactl packages in $DEBS (make numactl-deb)"
fi
VERSION=$(dpkg-deb -f "$LIB" Version)
case $VERSION in
*~deb12*) SUITE=bookworm DEBIAN=12 ;;
*~deb13*) SUITE=trixie DEBIAN=13 ;;
*) bail "$LIB: no ~deb12 or ~deb13 in its version $VERSION" ;;
esac
TARBALL=${ROOT_TARBALL:-$BUILD_DIR/cache/$SUITE-root.tar}

rm -rf "$WORK"
mkdir -p "$WORK" "$(dirname "$TARBALL")"
WORK=$(cd "$WORK" && pwd)
ROOT=$WORK/root
if [ ! -s "$TARBALL" ]; then
	ensure_packages mmdebstrap
	# as bwapd's package test makes the bookworm one
	mmdebstrap --quiet --format=tar --variant=apt --include=init-system-helpers \
		"$SUITE" "$TARBALL.tmp" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 ||
		bail "mmdebstrap failed (see $WORK/mmdebstrap.log)"
	mv "$TARBALL.tmp" "$TARBALL"
fi

# --- what goes into the root -------------------------------------------------
# A program that uses the weights API, packaged with the dependencies
# dpkg-shlibdeps derives from the fork's symbols file, as a package built
# against the fork's libnuma-dev would have.
A=$WORK/app
mkdir -p "$A/dev" "$A/debian/libnuma1/DEBIAN" "$A/debian/wi-weights/DEBIAN" \
	"$A/debian/wi-weights/usr/bin"
dpkg-deb -x "$LIB" "$A/dev"
dpkg-deb -x "$DEV" "$A/dev"
dpkg-deb -x "$LIB" "$A/debian/libnuma1"
dpkg-deb -e "$LIB" "$A/debian/libnuma1/DEBIAN"
cat >"$A/wi-weights.c" <<'C'
/* Give this process weights of its own if the kernel can, and say so. */
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	unsigned char w[1] = { 2 };

	if (numa_available() < 0 || !numa_has_weighted_interleave()) {
		printf("weighted interleave: no\n");
		return 0;
	}
	if (numa_set_task_weights(NUMA_WEIGHTS_SELF, w, 1) < 0) {
		printf("task weights: %s\n", strerror(errno));
		return errno == ENOSYS ? 0 : 1;
	}
	printf("task weights: set\n");
	return 0;
}
C
# (a Debian 13 libnuma needs a newer glibc than this machine may have: its
# own undefined references are not resolved here)
gcc -O2 -Wall -Werror -I"$A/dev/usr/include" -o "$A/debian/wi-weights/usr/bin/wi-weights" \
	"$A/wi-weights.c" -L"$A/dev/usr/lib/x86_64-linux-gnu" -lnuma \
	-Wl,--allow-shlib-undefined 2>"$WORK/app.log" ||
	bail "cannot build a program against the fork's libnuma-dev (see $WORK/app.log)"
printf 'Source: wi-weights\n\nPackage: wi-weights\nArchitecture: any\n' >"$A/debian/control"
deps=$(cd "$A" && dpkg-shlibdeps -O -l"$A/debian/libnuma1/usr/lib/x86_64-linux-gnu" \
	debian/wi-weights/usr/bin/wi-weights 2>"$WORK/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')
cat >"$A/debian/wi-weights/DEBIAN/control" <<CTL
Package: wi-weights
Version: 1.0
Architecture: amd64
Maintainer: Weighted Interleave Maintainers <maintainers@weighted-interleave.example>
Depends: $deps
Description: test program using libnuma's per-process weights
 Built against the fork's libnuma-dev.
CTL
dpkg-deb --root-owner-group -b "$A/debian/wi-weights" "$WORK/wi-weights.deb" >/dev/null ||
	bail "cannot build wi-weights.deb"

# Debian's libnuma1 of a higher version, in a local repository.
REPO=$WORK/repo
mkdir -p "$REPO" "$WORK/deb13"
debroot=$(numactl_debian_root) || bail "cannot fetch Debian's libnuma1"
d13=$(find "$(dirname "$debroot")" -maxdepth 1 -name 'libnuma1_*.deb' | head -1)
dpkg-deb -R "$d13" "$WORK/deb13/x"
sed -i 's/^Version: .*/Version: 2.0.19-2/' "$WORK/deb13/x/DEBIAN/control"
[ "$SUITE" = trixie ] || sed -i 's/libc6 (>= 2.38)/libc6 (>= 2.34)/' "$WORK/deb13/x/DEBIAN/control"
dpkg-deb --root-owner-group -b "$WORK/deb13/x" "$REPO/libnuma1_2.0.19-2_amd64.deb" >/dev/null ||
	bail "cannot re-version Debian's libnuma1"
(cd "$REPO" && dpkg-scanpackages . /dev/null >Packages 2>/dev/null)

# --- the root ----------------------------------------------------------------
trap 'clean_root_umount "$ROOT"' EXIT
clean_root_enter "$TARBALL" "$ROOT" 2>"$WORK/root.log" || bail "$(cat "$WORK/root.log")"
# shellcheck disable=SC2016 # dpkg-query's ${...}, not the shell's
version_of() { in_root dpkg-query -W -f '${Version}' "$1" 2>/dev/null; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi; }

echo "TAP version 13"
in_root apt-get update >"$WORK/update.log" 2>&1 ||
	bail "apt-get update in the root failed (see $WORK/update.log)"
if in_root apt-get install -y --no-install-recommends numactl >"$WORK/debian.log" 2>&1; then
	ok "Debian $DEBIAN's numactl $(version_of numactl) installs"
else
	not_ok "Debian $DEBIAN's numactl installs"
	comment <"$WORK/debian.log"
fi
# above Debian's 2.0.19-1 and its stable updates, the fork's Debian 12
# release, Debian's installed one; for Debian 13, above the fork's builds
# for Debian 12, so that an upgrade from 12 to 13 takes the fork's for 13
older=(2.0.19-1 2.0.19-1+deb13u1 2.0.19-1+deb13u9 2.0.16-1+wi1 "$(version_of libnuma1)")
[ "$SUITE" = bookworm ] || older+=(2.0.19-1+wi1~deb12u9)
for v in "${older[@]}"; do
	if dpkg --compare-versions "$VERSION" gt "$v"; then
		ok "$VERSION sorts above $v"
	else
		not_ok "$VERSION sorts above $v"
	fi
done

cp "$LIB" "$DEV" "$CLI" "$WORK/wi-weights.deb" "$ROOT/tmp/"
if in_root apt-get install -y --no-install-recommends "/tmp/$(basename "$LIB")" \
	"/tmp/$(basename "$CLI")" "/tmp/$(basename "$DEV")" /tmp/wi-weights.deb \
	>"$WORK/install.log" 2>&1; then
	ok "apt installs the fork's libnuma1, numactl, libnuma-dev over Debian's, and wi-weights"
else
	not_ok "apt installs the fork's libnuma1, numactl, libnuma-dev over Debian's, and wi-weights"
	comment <"$WORK/install.log"
fi
check "libnuma1 upgraded to the fork's" "$VERSION" "$(version_of libnuma1)"
check "numactl upgraded to the fork's" "$VERSION" "$(version_of numactl)"
check "numactl --version" "${VERSION%%-*}" "$(in_root numactl --version 2>&1)"
comment <<<"wi-weights Depends: $deps"
if grep -q "libnuma1-wi (>= " <<<"$deps"; then
	ok "dpkg-shlibdeps makes a program using the weights API depend on libnuma1-wi"
else
	not_ok "dpkg-shlibdeps makes a program using the weights API depend on libnuma1-wi"
	comment <"$WORK/shlibdeps.log"
fi
# libnuma1-wi's version is the number N of the newest node libnuma_wi_N
newest=$(readelf -V -W "$A"/dev/usr/lib/x86_64-linux-gnu/libnuma.so.1 |
	grep -o 'libnuma_wi_[0-9.]*' | sort -V | tail -n 1)
# shellcheck disable=SC2016 # dpkg-query's ${...}, not the shell's
check "the fork's libnuma1 provides libnuma1-wi (= ${newest#libnuma_wi_}), its newest node $newest" \
	"libnuma1-wi (= ${newest#libnuma_wi_})" "$(in_root dpkg-query -W -f '${Provides}' libnuma1)"

app() { # DESC: wi-weights runs with the installed libnuma
	local out rc
	out=$(in_root wi-weights 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && grep -q '^\(task weights\|weighted interleave\): ' <<<"$out"; then
		ok "$1 ($out)"
	else
		not_ok "$1 (exit status $rc)"
		comment <<<"$out"
	fi
}
app "wi-weights runs with the fork's libnuma"

# --- a Debian libnuma1 of a higher version -----------------------------------
mkdir -p "$ROOT/srv/repo"
cp "$REPO"/* "$ROOT/srv/repo/"
echo "deb [trusted=yes] file:/srv/repo ./" >"$ROOT/etc/apt/sources.list.d/later-debian.list"
in_root apt-get update >>"$WORK/update.log" 2>&1 ||
	bail "apt-get update with the local repository failed (see $WORK/update.log)"
comment < <(in_root apt-cache policy libnuma1)
in_root apt-get -s dist-upgrade >"$WORK/dist-upgrade.log" 2>&1
comment < <(grep -E '^(Inst|Remv)' "$WORK/dist-upgrade.log" | sed 's/^/apt-get dist-upgrade would: /')
if in_root apt-get upgrade -y >"$WORK/upgrade.log" 2>&1; then
	ok "apt-get upgrade runs"
else
	not_ok "apt-get upgrade runs"
	comment <"$WORK/upgrade.log"
fi
check "apt-get upgrade keeps the fork's libnuma1" "$VERSION" "$(version_of libnuma1)"
app "wi-weights runs after apt-get upgrade"
if in_root apt-get install -y --no-remove libnuma1=2.0.19-2 >"$WORK/replace.log" 2>&1; then
	not_ok "apt refuses to replace the fork's libnuma1 with 2.0.19-2 while wi-weights needs it"
else
	ok "apt refuses to replace the fork's libnuma1 with 2.0.19-2 while wi-weights needs it"
fi
grep -i 'libnuma1-wi\|broken\|remove' "$WORK/replace.log" | head -n 5 | comment
check "the fork's libnuma1 is still installed" "$VERSION" "$(version_of libnuma1)"
app "wi-weights runs after apt refused"

tap_end
