#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages of bwapd (bwapd, libbwapd-stable-dev) with
# Debian's tools: the source tree is assembled from this project
# (userspace/bwapd, the model it links, the kernel ABI header, its man page) with
# userspace/bwapd/debian as debian/, a changelog entry is written for
# bwapd's version (BWAPD_VERSION in userspace/bwapd/Makefile), and
# dpkg-buildpackage builds it; lintian then checks the packages.
#
# usage: build-bwapd-deb.sh [--rebuild N]
#
# Writes build/bwapd-deb/*.deb and build/bwapd-deb/lintian.txt. Fails
# when lintian reports an error or a warning.
#
# --rebuild N: once the packages are built, a newer build of the same
# source, as Debian numbers a rebuild (version VERSION+bN), into
# build/bwapd-deb/rebuild/: what an upgrade installs over them (the
# system test's upgrade).  It reuses the tree of the last build.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

REBUILD=""
case ${1:-} in
-h|--help) script_help "$0"; exit 0 ;;
--rebuild) REBUILD=${2:-}; [[ $REBUILD =~ ^[1-9][0-9]*$ ]] ||
	die "--rebuild takes the number of the build, 1 or more" ;;
"") ;;
*) die "unknown argument: $1 (see --help)" ;;
esac

ensure_packages debhelper dpkg-dev lintian libjson-c-dev libpfm4-dev

VERSION=$(sed -n 's/^BWAPD_VERSION := //p' "$REPO_ROOT/userspace/bwapd/Makefile")
[ -n "$VERSION" ] || die "no BWAPD_VERSION in userspace/bwapd/Makefile"
DEB=$BUILD_DIR/bwapd-deb
SRC=$DEB/bwapd-$VERSION
MAINT=$(sed -n 's/^Maintainer: //p' "$REPO_ROOT/userspace/bwapd/debian/control")

if [ -n "$REBUILD" ]; then
	[ -f "$SRC/debian/changelog" ] || die "no build of bwapd $VERSION in $DEB (make bwapd-deb)"
	V=$VERSION+b$REBUILD
	# the entry on top of the changelog of the last build, as a rebuild
	# adds one; the tree's own is put back afterwards
	cp "$SRC/debian/changelog" "$DEB/changelog"
	{
		printf 'bwapd (%s) unstable; urgency=medium\n\n' "$V"
		printf '  * Rebuild of bwapd %s.\n\n -- %s  %s\n\n' "$VERSION" "$MAINT" "$(date -R)"
		cat "$DEB/changelog"
	} >"$SRC/debian/changelog"
	info "building bwapd $V (log: $DEB/rebuild.log)"
	rc=0
	(cd "$SRC" && dpkg-buildpackage -b -nc -uc -us) >"$DEB/rebuild.log" 2>&1 || rc=$?
	mv "$DEB/changelog" "$SRC/debian/changelog"
	[ $rc = 0 ] || { tail -n 30 "$DEB/rebuild.log" >&2; die "dpkg-buildpackage failed (see $DEB/rebuild.log)"; }
	rm -rf "$DEB/rebuild"
	mkdir -p "$DEB/rebuild"
	mv "$DEB"/*_"$V"_* "$DEB/rebuild/"
	for d in "$DEB"/rebuild/*.deb; do
		info "$(basename "$d")"
	done
	exit 0
fi
rm -rf "$DEB"
mkdir -p "$SRC/userspace" "$SRC/Documentation/man8"
for d in bwapd model include; do
	# the sources, not what a build left in the tree
	(cd "$REPO_ROOT/userspace" && git ls-files -co --exclude-standard "$d" |
		grep -v '^bwapd/debian/' | cpio -pdm --quiet "$SRC/userspace")
done
cp "$REPO_ROOT/Documentation/man8/bwapd.8" "$SRC/Documentation/man8/"
cp -r "$REPO_ROOT/userspace/bwapd/debian" "$SRC/debian"

DATE=$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$REPO_ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}")
cat >"$SRC/debian/changelog" <<EOT
bwapd ($VERSION) unstable; urgency=medium

  * bwapd $VERSION: canonical weighted-interleave weights, the online
    tuner and its daemon, libbwapd-stable.

 -- $MAINT  $DATE
EOT

info "building the bwapd packages (log: $DEB/build.log)"
(cd "$SRC" && dpkg-buildpackage -b -uc -us) >"$DEB/build.log" 2>&1 ||
	{ tail -n 30 "$DEB/build.log" >&2; die "dpkg-buildpackage failed (see $DEB/build.log)"; }

info "lintian (report: $DEB/lintian.txt)"
lintian --info --display-info --pedantic "$DEB"/bwapd_"${VERSION}"_*.changes \
	>"$DEB/lintian.txt" 2>&1 || true
if grep -E '^[EW]: ' "$DEB/lintian.txt" >&2; then
	die "lintian reports errors or warnings (see $DEB/lintian.txt)"
fi
for d in "$DEB"/*.deb; do
	info "$(basename "$d")"
done
