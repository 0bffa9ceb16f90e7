#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Debian packages of numactl with the patches in numactl/:
# upstream's release tarball (the orig tarball of Debian's source package
# numactl/version), the packaging in numactl/debian (adapted from Debian
# 12's 2.0.16-1: the archive serves no debian.tar.xz of 2.0.19-1) and the
# patches as debian/patches, built with dpkg-buildpackage.
#
# usage: build-numactl-deb.sh
#
# Writes build/numactl/deb/*.deb (numactl, libnuma1, libnuma-dev), which an
# admin installs with "apt-get install ./libnuma1_*.deb ./numactl_*.deb".
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) script_help "$0"; exit 0 ;; esac

PDIR=$REPO_ROOT/numactl
NDIR=$BUILD_DIR/numactl
NUMACTL_VERSION=$(numactl_version)
UPSTREAM=${NUMACTL_VERSION%-*}
ensure_packages debhelper dpkg-dev
tarball=$(numactl_orig_tarball)

PKG_VERSION=$(dpkg-parsechangelog -l "$PDIR/debian/changelog" -S Version)
case $PKG_VERSION in
"$NUMACTL_VERSION"+wi*) ;;
*) die "numactl/debian/changelog is at $PKG_VERSION, not at $NUMACTL_VERSION+wi...: add an entry" ;;
esac

DEB=$NDIR/deb
SRC=$DEB/numactl-$UPSTREAM
rm -rf "$DEB"
mkdir -p "$SRC"
ln -s "$tarball" "$DEB/numactl_$UPSTREAM.orig.tar.gz"
tar -xzf "$tarball" -C "$SRC" --strip-components=1
cp -a "$PDIR/debian" "$SRC/debian"
mkdir -p "$SRC/debian/patches"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PDIR/series" | while read -r p; do
	cp "$PDIR/$p" "$SRC/debian/patches/"
	echo "$p" >> "$SRC/debian/patches/series"
done

info "building Debian packages $PKG_VERSION (log: $DEB/build.log)"
(cd "$SRC" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -b -uc -us) \
	>"$DEB/build.log" 2>&1 ||
	{ tail -n 30 "$DEB/build.log" >&2; die "dpkg-buildpackage failed (see $DEB/build.log)"; }
for d in "$DEB"/*.deb; do
	info "$(basename "$d")"
done
