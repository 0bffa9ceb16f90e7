#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Debian packages of numactl with the patches in numactl/:
# upstream's release tarball (the orig tarball of Debian's source package
# numactl/version), the packaging in numactl/debian (adapted from Debian
# 12's 2.0.16-1: the archive serves no debian.tar.xz of 2.0.19-1) and the
# patches as debian/patches, built with dpkg-buildpackage.
#
# usage: build-numactl-deb.sh [--suite bookworm|trixie]
#
#   bookworm  (default) Debian 12, built on this machine, version
#             2.0.19-1+wi1~deb12u1 (numactl/debian/changelog), into
#             build/numactl/deb
#   trixie    Debian 13, built in a Debian 13 build root (mmdebstrap,
#             cached in build/cache/trixie-build-root.tar), version
#             2.0.19-1+wi1~deb13u1 (an entry added on top), into
#             build/numactl/deb-trixie
#
# Writes numactl, libnuma1 and libnuma-dev .debs, which an admin installs
# with "apt-get install ./libnuma1_*.deb ./numactl_*.deb".
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SUITE=bookworm
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) script_help "$0"; exit 0 ;;
	--suite) SUITE=${2:-}; shift 2 ;;
	*) die "usage: $0 [--suite bookworm|trixie]" ;;
	esac
done

PDIR=$REPO_ROOT/numactl
NDIR=$BUILD_DIR/numactl
NUMACTL_VERSION=$(numactl_version)
UPSTREAM=${NUMACTL_VERSION%-*}
ensure_packages debhelper dpkg-dev
tarball=$(numactl_orig_tarball)

PKG_VERSION=$(dpkg-parsechangelog -l "$PDIR/debian/changelog" -S Version)
case $PKG_VERSION in
"$NUMACTL_VERSION"+wi*~deb12u*) ;;
*) die "numactl/debian/changelog is at $PKG_VERSION, not at $NUMACTL_VERSION+wiN~deb12uN: add an entry" ;;
esac
case $SUITE in
bookworm) DEB=$NDIR/deb ;;
trixie) DEB=$NDIR/deb-trixie PKG_VERSION=${PKG_VERSION%~deb12u*}~deb13u1 ;;
*) die "no suite '$SUITE' (bookworm or trixie)" ;;
esac

# The source tree: the tarball, numactl/debian, the patches.
rm -rf "$DEB"
SRC=$DEB/src/numactl-$UPSTREAM
mkdir -p "$SRC"
cp "$tarball" "$DEB/src/"
tar -xzf "$tarball" -C "$SRC" --strip-components=1
cp -a "$PDIR/debian" "$SRC/debian"
mkdir -p "$SRC/debian/patches"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PDIR/series" | while read -r p; do
	cp "$PDIR/$p" "$SRC/debian/patches/"
	echo "$p" >> "$SRC/debian/patches/series"
done
if [ "$SUITE" = trixie ]; then
	{
		echo "numactl ($PKG_VERSION) trixie; urgency=medium"
		echo
		echo "  * Built for Debian 13."
		echo
		sed -n 's/^ -- \(.*>\)  .*/ -- \1/p' "$PDIR/debian/changelog" | head -n 1 |
			tr -d '\n'
		echo "  $(dpkg-parsechangelog -l "$PDIR/debian/changelog" -S Date)"
		echo
		cat "$PDIR/debian/changelog"
	} >"$SRC/debian/changelog"
fi

info "building Debian packages $PKG_VERSION for $SUITE (log: $DEB/build.log)"
if [ "$SUITE" = bookworm ]; then
	(cd "$SRC" && DEB_BUILD_OPTIONS=parallel=2 dpkg-buildpackage -b -uc -us) \
		>"$DEB/build.log" 2>&1 ||
		{ tail -n 30 "$DEB/build.log" >&2; die "dpkg-buildpackage failed (see $DEB/build.log)"; }
	mv "$DEB"/src/*.deb "$DEB/"
else
	# A Debian 13 build root: build-essential and debhelper.
	TARBALL=$BUILD_DIR/cache/trixie-build-root.tar
	if [ ! -s "$TARBALL" ]; then
		ensure_packages mmdebstrap
		info "bootstrapping a Debian 13 build root into $TARBALL"
		mmdebstrap --quiet --format=tar --variant=buildd --include=debhelper \
			trixie "$TARBALL.tmp" "$(debian_mirror)" >"$DEB/mmdebstrap.log" 2>&1 ||
			die "mmdebstrap failed (see $DEB/mmdebstrap.log)"
		mv "$TARBALL.tmp" "$TARBALL"
	fi
	ROOT=$DEB/root
	cleanup() {
		for m in proc dev; do
			mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"
		done
		rm -rf --one-file-system "$ROOT"
	}
	trap cleanup EXIT
	mkdir -p "$ROOT"
	tar -C "$ROOT" -xf "$TARBALL"
	mount --bind /dev "$ROOT/dev"
	mount -t proc proc "$ROOT/proc"
	mv "$DEB/src" "$ROOT/build"
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEB_BUILD_OPTIONS=parallel=2 LC_ALL=C.UTF-8 \
		sh -c "cd /build/numactl-$UPSTREAM && dpkg-buildpackage -b -uc -us" \
		>"$DEB/build.log" 2>&1 ||
		{ tail -n 30 "$DEB/build.log" >&2; die "dpkg-buildpackage in the Debian 13 root failed (see $DEB/build.log)"; }
	mv "$ROOT"/build/*.deb "$DEB/"
fi
rm -rf "$DEB/src"
for d in "$DEB"/*.deb; do
	info "$(basename "$d")"
done
