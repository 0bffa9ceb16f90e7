#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The system test machine: Debian 13 under systemd (scripts/system-image.sh)
# booted as the numa4 machine with HMAT, once on this project's 6.12
# kernel and once on Debian's own 7.3 from trixie-backports as Debian
# ships it.  In each, scripts/system/operator.sh installs the packages
# the way the documentation says and drives the system as an operator
# would (systemctl, journalctl, bwapd status, apt).
#
# usage: system-test.sh --out DIR --debs DIR [--wi BZIMAGE --wi-deb DIR]
#                       [--stock]
#
#   --debs DIR     the packages to install: bwapd_*.deb, libnuma1_*.deb and
#                  numactl_*.deb (make bwapd-deb, make numactl-deb), a
#                  newer build of bwapd in DIR/upgrade (build-bwapd-deb.sh
#                  --rebuild), and wi_hold (build/selftests/helpers)
#   --wi BZIMAGE   this project's kernel, built from the test configuration
#                  with scripts/kconfig/system.config (make system-kernel),
#   --wi-deb DIR   and its linux-image package (bindeb-pkg), installed in
#                  the machine it boots
#   --stock        Debian's 7.3 kernel and initramfs, from the image
#
# Results: DIR/wi and DIR/debian-7.3, each as scripts/vm-run.sh leaves
# them (tap/operator.tap, tap/operator-boot.tap after the machine's
# reboot, tap/vm.tap, tap/kernel-console.tap); the two
# machines run side by side.  The exit status is 0 once they ran: the
# results are in the TAP files.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

OUT="" DEBS="" WI="" WI_DEB="" STOCK=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift 2 ;;
	--debs) DEBS=$2; shift 2 ;;
	--wi) WI=$2; shift 2 ;;
	--wi-deb) WI_DEB=$2; shift 2 ;;
	--stock) STOCK=1; shift ;;
	-h|--help) script_help "$0"; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
if [ -z "$OUT" ] || [ -z "$DEBS" ]; then
	die "usage: $0 --out DIR --debs DIR [--wi BZIMAGE --wi-deb DIR] [--stock]"
fi
[ -n "$WI" ] || [ "$STOCK" = 1 ] || die "no kernel to boot (--wi, --stock)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
IMAGE=$BUILD_DIR/system

"$REPO_ROOT/scripts/system-image.sh" "$IMAGE"

# payload NAME [DEB...]: the test disk of one machine
payload() {
	local name=$1 dir=$OUT/$1.disk f
	shift
	rm -rf "$dir" "$OUT/$name.img"
	mkdir -p "$dir/debs"
	for f in "$DEBS"/bwapd_*.deb "$DEBS"/libnuma1_*.deb "$DEBS"/numactl_*.deb "$@"; do
		[ -f "$f" ] || die "no package $f"
		cp "$f" "$dir/debs/"
	done
	mkdir -p "$dir/debs/upgrade"
	for f in "$DEBS"/upgrade/bwapd_*.deb; do
		[ -f "$f" ] || die "no package $f (the newer build to upgrade to)"
		cp "$f" "$dir/debs/upgrade/"
	done
	cp "$DEBS/wi_hold" "$REPO_ROOT"/scripts/system/*.sh "$dir/"
	# the second after the reboot the first asks for
	printf '%s\n' operator.sh operator-boot.sh >"$dir/tests"
	mkfs.ext4 -q -L wi-test -d "$dir" "$OUT/$name.img" 256M ||
		die "mkfs.ext4 -d $dir failed"
	rm -rf "$dir"
}

# boot NAME DISK vm-run.sh-ARG...: in the background, into OUT/NAME.  A
# Debian kernel may die on the emulator's int3 fault under multi-threaded
# TCG (scripts/vm-tests.sh says why): such a machine boots once more.
boot() {
	local name=$1 disk=$2
	shift 2
	(
		for try in 1 2; do
			"$REPO_ROOT/scripts/vm-run.sh" --disk "$IMAGE/root.img" \
				--drive "$disk" --topology numa4 --mode system \
				--out "$OUT/$name" --timeout 3600 "$@" \
				>"$OUT/$name.log" 2>&1 || true
			grep -q 'Oops: int3' "$OUT/$name/console.log" 2>/dev/null || break
			[ $try = 2 ] || mv "$OUT/$name/console.log" "$OUT/$name-int3-console.log"
		done
	) &
}

rm -rf "$OUT/wi" "$OUT/debian-7.3"
if [ -n "$WI" ]; then
	deb=$(find "$WI_DEB" -maxdepth 1 -name 'linux-image-*.deb' ! -name '*-dbg_*' | head -n 1)
	[ -n "$deb" ] || die "no linux-image package in $WI_DEB"
	payload wi "$deb"
	boot wi "$OUT/wi.img" --kernel "$WI"
fi
if [ "$STOCK" = 1 ]; then
	payload debian
	boot debian-7.3 "$OUT/debian.img" --kernel "$IMAGE/vmlinuz-debian" \
		--initrd "$IMAGE/initrd-debian"
fi
wait
rm -f "$OUT"/*.img
for d in "$OUT"/wi "$OUT"/debian-7.3; do
	[ -d "$d" ] && info "$(basename "$d"): $(grep -h '^ok 1 - \|^not ok 1 - ' "$d/tap/vm.tap")"
done
exit 0
