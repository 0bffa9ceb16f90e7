#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that every prefix of kernel-patches/BASE/series builds
# (bisectability).
#
# usage: [BASE=6.12] series-build.sh
#
# Works on its own tree and object directory (build/BASE/series/linux,
# build/BASE/series/kernel) so the test kernel in build/BASE/linux is left
# alone. The layout mirrors build/BASE/{linux,kernel}, so compiler cache
# entries are shared with the test kernel build.
# The base tree is built first, then the patches are applied one at a
# time with an incremental build after each. Fails naming the first patch
# that does not apply or does not build.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$BASE_BUILD/series/linux
OBJ=$BASE_BUILD/series/kernel
FRAGMENTS=${KCONFIG_FRAGMENTS:-base debug}

"$REPO_ROOT/scripts/kernel-source.sh" --dest "$SRC" --base-only
VERSION=$(git_tree "$SRC" config --get wi.debversion)

git_tree "$SRC" am --abort >/dev/null 2>&1 || true
git_tree "$SRC" checkout -q -f -B series base
git_tree "$SRC" clean -q -f -d -x

build() {
	if ! "$REPO_ROOT/scripts/build-kernel.sh" --fragments "$FRAGMENTS" "$SRC" "$OBJ"; then
		echo "$1 does not build (log: $OBJ.log)" >&2
		exit 1
	fi
}

info "series-build: base ($KSRC_PKG $VERSION)"
build "the base tree ($KSRC_PKG $VERSION)"

mapfile -t patches < <(series_patches)
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	f=$PATCH_DIR/$p
	[ -f "$f" ] || die "kernel-patches/$BASE/$p is listed in kernel-patches/$BASE/series but does not exist"
	info "series-build: [$n/${#patches[@]}] $p"
	if ! git_tree "$SRC" am -q "$f"; then
		git_tree "$SRC" am --abort >/dev/null 2>&1 || true
		echo "kernel-patches/$BASE/$p does not apply to $KSRC_PKG $VERSION" >&2
		exit 1
	fi
	build "kernel-patches/$BASE/$p"
done
info "series-build: all ${#patches[@]} patch(es) build one by one"
