#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare a git kernel tree from Debian's linux-source-BASE package with the
# kernel-patches/BASE/ series applied on top ($BASE, default 6.1).
#
# usage: [BASE=6.12] kernel-source.sh [--dest DIR] [--base-only]
#
#   --dest DIR    tree to create (default: build/BASE/linux)
#   --base-only   stop after tagging 'base'; do not apply the series
#
# The package version is pinned in kernel-patches/BASE/version (one place
# only). If the pinned version has left the archive the newest
# linux-source-BASE is used instead, with a warning naming both versions.
#
# The tree is reused when the package version and the sha256 of
# kernel-patches/BASE/* match the stamp written by the previous run. When only
# the patches changed the tree is reset to 'base' and the series re-applied,
# which keeps the mtime of untouched files so O= builds stay incremental.
# A different package version recreates the tree from the tarball.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DEST=$BASE_BUILD/linux
BASE_ONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--dest) DEST=$2; shift 2 ;;
	--base-only) BASE_ONLY=1; shift ;;
	-h|--help) script_help "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
mkdir -p "$(dirname "$DEST")"
DEST=$(cd "$(dirname "$DEST")" && pwd)/$(basename "$DEST")
STAMP=$DEST.stamp

# --- 1. the source package, at the pinned version if possible ------------
ensure_source_package() {
	local want have avail newest
	want=$(pinned_kernel_version)
	have=$(installed_pkg_version "$KSRC_PKG")
	if [ "$have" = "$want" ] && [ -f "$KSRC_TARBALL" ]; then
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		die "$KSRC_PKG $want is required (installed: ${have:-none}); run as root to install it"
	fi
	export DEBIAN_FRONTEND=noninteractive
	avail=$(apt-cache madison "$KSRC_PKG" 2>/dev/null | awk '{ print $3 }')
	if ! grep -qxF "$want" <<<"$avail"; then
		apt-get update
		avail=$(apt-cache madison "$KSRC_PKG" 2>/dev/null | awk '{ print $3 }')
	fi
	if grep -qxF "$want" <<<"$avail"; then
		info "installing $KSRC_PKG=$want"
		apt-get install -y --no-install-recommends --allow-downgrades "$KSRC_PKG=$want"
		return 0
	fi
	newest=$(apt-cache policy "$KSRC_PKG" | awk '/Candidate:/ { print $2 }')
	if [ -z "$newest" ] || [ "$newest" = "(none)" ]; then
		die "$KSRC_PKG is not available from the configured apt sources"
	fi
	warn "$KSRC_PKG $want (kernel-patches/$BASE/version) is no longer in the archive;"
	warn "using $KSRC_PKG $newest instead. Update kernel-patches/$BASE/version once the series is verified on it."
	if [ "$have" != "$newest" ] || [ ! -f "$KSRC_TARBALL" ]; then
		apt-get install -y --no-install-recommends "$KSRC_PKG=$newest"
	fi
}

ensure_source_package
VERSION=$(installed_pkg_version "$KSRC_PKG")
[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing after installing $KSRC_PKG $VERSION"

# --- 2. stamp: package version + content of kernel-patches/BASE/ ----------
patches_digest() {
	local dir=$PATCH_DIR
	if [ -d "$dir" ]; then
		(cd "$dir" && find . -type f -print0 | LC_ALL=C sort -z |
			xargs -0r sha256sum) | sha256sum | cut -d' ' -f1
	else
		echo none
	fi
}

if [ "$BASE_ONLY" = 1 ]; then
	WANT_STAMP="version=$VERSION base-only"
else
	WANT_STAMP="version=$VERSION patches=$(patches_digest)"
fi

tree_ok() {
	[ -d "$DEST/.git" ] && git_tree "$DEST" rev-parse -q --verify refs/tags/base >/dev/null
}

if tree_ok && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT_STAMP" ]; then
	if [ "$BASE_ONLY" = 1 ]; then
		info "reusing $DEST ($KSRC_PKG $VERSION)"
	else
		info "reusing $DEST ($KSRC_PKG $VERSION, kernel-patches/$BASE/ unchanged)"
	fi
	exit 0
fi
rm -f "$STAMP"

# --- 3. the base tree ------------------------------------------------------
# Re-applying the series rewrites every file it touches. To keep O= builds
# incremental, files whose content ends up as it was before get their old
# mtime back. Only done from a clean tree: a hand-edited file may have been
# built in its edited state.
OLD_HEAD=""
MTIMES=$DEST.mtimes
save_mtimes() {
	rm -f "$MTIMES"
	[ -z "$(git_tree "$DEST" status --porcelain --untracked-files=no)" ] || return 0
	OLD_HEAD=$(git_tree "$DEST" rev-parse HEAD)
	(cd "$DEST" && git diff --name-only -z base "$OLD_HEAD" |
		xargs -0r stat -c '%y	%n' >"$MTIMES") || rm -f "$MTIMES"
}
restore_mtimes() {
	local t f n=0
	[ -n "$OLD_HEAD" ] && [ -f "$MTIMES" ] || return 0
	while IFS=$'\t' read -r t f; do
		if [ "$(git_tree "$DEST" rev-parse -q --verify "$OLD_HEAD:$f" 2>/dev/null)" = \
		     "$(git_tree "$DEST" rev-parse -q --verify "HEAD:$f" 2>/dev/null)" ]; then
			touch -d "$t" "$DEST/$f"
			n=$((n + 1))
		fi
	done <"$MTIMES"
	rm -f "$MTIMES"
	info "kept the timestamps of $n unchanged file(s)"
}

if tree_ok && [ "$(git_tree "$DEST" config --get wi.debversion || true)" = "$VERSION" ]; then
	info "resetting $DEST to base ($KSRC_PKG $VERSION)"
	git_tree "$DEST" am --abort >/dev/null 2>&1 || true
	save_mtimes
	git_tree "$DEST" checkout -q -f --detach base
	git_tree "$DEST" clean -q -f -d -x
else
	info "unpacking $KSRC_PKG $VERSION into $DEST"
	rm -rf "$DEST"
	mkdir -p "$DEST"
	tar -xJf "$KSRC_TARBALL" -C "$DEST" --strip-components=1
	git_tree "$DEST" init -q
	git_tree "$DEST" config wi.debversion "$VERSION"
	# Debian's top-level .gitignore ignores nearly everything: force it.
	git_tree "$DEST" add -f -A
	git_tree "$DEST" commit -q -m "Linux $VERSION ($KSRC_PKG $VERSION)"
	git_tree "$DEST" tag base
fi
git_tree "$DEST" checkout -q -B main base

# --- 4. the series ---------------------------------------------------------
if [ "$BASE_ONLY" = 0 ]; then
	n=0
	while IFS= read -r p; do
		f=$PATCH_DIR/$p
		if [ ! -f "$f" ]; then
			echo "kernel-patches/$BASE/$p is listed in kernel-patches/$BASE/series but does not exist" >&2
			exit 1
		fi
		if ! git_tree "$DEST" am -q "$f" >"$DEST.am.log" 2>&1; then
			cat "$DEST.am.log" >&2
			git_tree "$DEST" am --abort >/dev/null 2>&1 || true
			echo "kernel-patches/$BASE/$p does not apply to $KSRC_PKG $VERSION" >&2
			exit 1
		fi
		n=$((n + 1))
	done < <(series_patches)
	rm -f "$DEST.am.log"
	info "applied $n patch(es) from kernel-patches/$BASE/series onto $KSRC_PKG $VERSION"
fi
restore_mtimes

echo "$WANT_STAMP" > "$STAMP"
