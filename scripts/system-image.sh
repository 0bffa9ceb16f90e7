#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The system test machine's disk: a Debian 13 (trixie) system as an
# operator has it, with systemd as PID 1, apt, and Debian's 7.3 kernel
# from trixie-backports (linux-image-cloud-amd64) with its initramfs.
# Built with mmdebstrap from the Debian archive this machine's apt uses
# (scripts/lib.sh, debian_mirror; DEBIAN_MIRROR overrides it), into an
# ext4 image; cached, and built again when what goes into it changes
# (the package list below, this script, the test's unit and runner).
#
# usage: system-image.sh [OUTDIR]      (default build/system)
#
# Writes OUTDIR/root.img (the disk, never written by a test machine,
# which boots a copy-on-write layer over it), OUTDIR/vmlinuz-debian and
# OUTDIR/initrd-debian (Debian's kernel and initramfs, taken out of the
# image for QEMU's -kernel), OUTDIR/packages (what was installed,
# dpkg-query) and OUTDIR/image.key.  Run as root.
#
# Beside Debian's packages the image holds one unit of the test's own,
# wi-system-test.service (scripts/system/): once the system is up it
# runs the test the second disk carries, and powers the machine off.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) script_help "$0"; exit 0 ;; esac
OUT=${1:-$BUILD_DIR/system}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# What an operator's machine has before our packages: systemd, apt and
# Debian's kernel; the libraries bwapd and the numactl fork link, so that
# "apt install ./bwapd_*.deb" needs no network in the test machine; jq
# for the test's JSON; kmod and initramfs-tools for a kernel package.
PACKAGES=(systemd-sysv udev dbus libnss-systemd apt kmod initramfs-tools
	linux-image-cloud-amd64/trixie-backports procps jq e2fsprogs
	libjson-c5 libpfm4 libnuma1)
SIZE_MB=1536

ensure_packages mmdebstrap e2fsprogs
mirror=$(debian_mirror)
key=$({
	printf '%s\n' "${PACKAGES[@]}" "$SIZE_MB" "$mirror"
	sha256sum "$0" "$REPO_ROOT"/scripts/system/wi-system-test* | cut -d' ' -f1
} | sha256sum | cut -d' ' -f1)
if [ -s "$OUT/root.img" ] && [ -f "$OUT/image.key" ] &&
   [ "$(cat "$OUT/image.key")" = "$key" ]; then
	info "system image up to date ($OUT/root.img)"
	exit 0
fi

info "building the system image (Debian 13 under systemd; log: $OUT/mmdebstrap.log)"
rm -f "$OUT/image.key"
TREE=$OUT/tree
rm -rf --one-file-system "$TREE"
include=$(IFS=,; echo "${PACKAGES[*]}")
# The test's unit and its runner go in with the customize hooks; the
# kernel's initramfs is Debian's, made by the package's own hook.
# shellcheck disable=SC2016 # a hook's $1 is mmdebstrap's: the root
mmdebstrap --variant=minbase --include="$include" \
	--customize-hook="copy-in $REPO_ROOT/scripts/system/wi-system-test.service /etc/systemd/system" \
	--customize-hook="copy-in $REPO_ROOT/scripts/system/wi-system-test /usr/local/sbin" \
	--customize-hook='chroot "$1" systemctl enable wi-system-test.service' \
	--customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service' \
	--customize-hook='echo wi-system >"$1/etc/hostname"' \
	--customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root' \
	trixie "$TREE" "deb $mirror trixie main" "deb $mirror trixie-backports main" \
	>"$OUT/mmdebstrap.log" 2>&1 ||
	{ tail -n 20 "$OUT/mmdebstrap.log" >&2; die "mmdebstrap failed (see $OUT/mmdebstrap.log)"; }

vmlinuz=$(find "$TREE/boot" -name 'vmlinuz-*' | sort -V | tail -n 1)
initrd=$(find "$TREE/boot" -name 'initrd.img-*' | sort -V | tail -n 1)
if [ -z "$vmlinuz" ] || [ -z "$initrd" ]; then
	die "no kernel or initramfs in the image's /boot"
fi
cp "$vmlinuz" "$OUT/vmlinuz-debian"
cp "$initrd" "$OUT/initrd-debian"
# shellcheck disable=SC2016 # dpkg-query's fields
chroot "$TREE" dpkg-query -W -f '${Package} ${Version}\n' >"$OUT/packages"

rm -f "$OUT/root.img"
mkfs.ext4 -q -L wi-root -d "$TREE" "$OUT/root.img" "${SIZE_MB}M" ||
	die "mkfs.ext4 -d failed"
rm -rf --one-file-system "$TREE"
echo "$key" >"$OUT/image.key"
info "system image: $OUT/root.img ($(basename "$vmlinuz"))"
