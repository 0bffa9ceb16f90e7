#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages of a kernel with the series, for installing on
# a real machine: the tree of BASE (build/BASE/linux, the series applied)
# with Debian's own configuration for that kernel (linux-config-BASE,
# amd64), packaged by the kernel's bindeb-pkg.
#
# usage: [BASE=6.12] build-kernel-deb.sh SRC OUTDIR
#
#   SRC      kernel tree with the series (make source BASE=...)
#   OUTDIR   receives linux-image-VERSION-wi_*.deb (and the headers and
#            libc-dev packages); the objects go to OUTDIR/obj
#
# Debian's configuration is taken as it is but for three changes: the
# release gets the "-wi" suffix (uname -r: 6.12.117-wi), Debian's signing
# keys, which are not in the source package, are not required, and no
# debug information is built (it would take several GB). The packages it
# needs (linux-config-BASE and the kernel's build dependencies) are
# installed when missing, as root.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) script_help "$0"; exit 0 ;; esac
[ $# -eq 2 ] || die "usage: $0 SRC OUTDIR"
SRC=$(cd "$1" && pwd) || die "no kernel tree at $1"
mkdir -p "$2/obj"
OUT=$(cd "$2" && pwd)
OBJ=$OUT/obj

CONFIG_PKG=linux-config-$BASE
CONFIG_XZ=/usr/src/$CONFIG_PKG/config.amd64_none_amd64.xz
ensure_packages "$CONFIG_PKG" build-essential bc bison flex libelf-dev libssl-dev \
	dwarves rsync kmod cpio dpkg-dev debhelper
[ -f "$CONFIG_XZ" ] || die "$CONFIG_XZ not found in $CONFIG_PKG"

MAKE=(make -C "$SRC" O="$OBJ" ARCH=x86_64 -j"${JOBS:-$(nproc)}")
info "configuring $BASE with Debian's configuration ($CONFIG_PKG)"
xzcat "$CONFIG_XZ" >"$OBJ/.config"
"$SRC/scripts/config" --file "$OBJ/.config" \
	--set-str LOCALVERSION "-wi" \
	--disable LOCALVERSION_AUTO \
	--set-str SYSTEM_TRUSTED_KEYS "" \
	--set-str SYSTEM_REVOCATION_KEYS "" \
	--disable MODULE_SIG_ALL \
	--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
	--enable DEBUG_INFO_NONE
"${MAKE[@]}" olddefconfig >"$OUT/config.log" 2>&1 ||
	{ cat "$OUT/config.log" >&2; die "make olddefconfig failed"; }
for sym in NUMA MIGRATION MEMORY_HOTPLUG; do
	grep -q "^CONFIG_$sym=y" "$OBJ/.config" ||
		die "Debian's configuration of $BASE lacks CONFIG_$sym"
done

info "building the packages (log: $OUT/build.log); this takes a while"
# bindeb-pkg writes the packages next to the object directory: in OUTDIR.
rm -f "$OUT"/*.deb
if ! "${MAKE[@]}" bindeb-pkg >"$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	die "bindeb-pkg failed (full log: $OUT/build.log)"
fi
ls "$OUT"/linux-image-*-wi_*.deb >/dev/null 2>&1 ||
	die "no linux-image package in $OUT (see $OUT/build.log)"
info "packages in $OUT:"
ls -1 "$OUT"/*.deb
