#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Debian packages of numactl with the patches in numactl/: Debian's
# own source package (fetched by build-numactl.sh) with the patches added
# to debian/patches/series, the new libnuma symbols to the symbols file
# and a changelog entry, built with dpkg-buildpackage.
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
NUMACTL_VERSION=$(tr -d '[:space:]' < "$PDIR/version")
dsc=$NDIR/pkg/numactl_$NUMACTL_VERSION.dsc
[ -f "$dsc" ] || "$REPO_ROOT/scripts/build-numactl.sh"
if [ -z "$(installed_pkg_version debhelper)" ]; then
	[ "$(id -u)" = 0 ] || die "debhelper is missing (apt-get install debhelper)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		debhelper >/dev/null
fi

DEB=$NDIR/deb
SRC=$DEB/numactl-${NUMACTL_VERSION%-*}
rm -rf "$DEB"
mkdir -p "$DEB"
dpkg-source --no-check -x "$dsc" "$SRC" >/dev/null

mkdir -p "$SRC/debian/patches"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PDIR/series" | while read -r p; do
	cp "$PDIR/$p" "$SRC/debian/patches/"
	echo "$p" >> "$SRC/debian/patches/series"
done

# The symbols the patches add, with the version that brings them.
PKG_VERSION=$NUMACTL_VERSION+wi1
{
	for s in numa_set_weighted_interleave_mask numa_get_weighted_interleave_mask \
		numa_alloc_weighted_interleaved numa_alloc_weighted_interleaved_subset \
		numa_weighted_interleave_memory; do
		echo " $s@libnuma_2.1 $PKG_VERSION"
	done
	for s in numa_has_weighted_interleave numa_has_task_weights \
		numa_set_task_weights numa_get_task_weights \
		numa_get_weighted_interleave_weight set_mempolicy_weights \
		get_mempolicy_weights; do
		echo " $s@libnuma_wi_1.0 $PKG_VERSION"
	done
	echo " libnuma_2.1@libnuma_2.1 $PKG_VERSION"
	echo " libnuma_wi_1.0@libnuma_wi_1.0 $PKG_VERSION"
} >> "$SRC/debian/libnuma1.symbols"

{
	echo "numactl ($PKG_VERSION) $(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}"); urgency=medium"
	echo
	echo "  * Weighted interleave: numactl -w/--weighted-interleave, per-command"
	echo "    weights (--weights, set_mempolicy_weights(2)), the libnuma calls"
	echo "    for both. Patches: $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PDIR/series" | wc -l)."
	echo
	echo " -- Weighted Interleave <wi@localhost>  $(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$REPO_ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}")"
	echo
	cat "$SRC/debian/changelog"
} > "$DEB/changelog" && mv "$DEB/changelog" "$SRC/debian/changelog"

info "building Debian packages (log: $DEB/build.log)"
(cd "$SRC" && dpkg-buildpackage -b -uc -us) >"$DEB/build.log" 2>&1 ||
	{ tail -n 30 "$DEB/build.log" >&2; die "dpkg-buildpackage failed (see $DEB/build.log)"; }
for d in "$DEB"/*.deb; do
	info "$(basename "$d")"
done
