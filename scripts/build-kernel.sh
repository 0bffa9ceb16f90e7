#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build the test kernel.
#
# usage: build-kernel.sh [--fragments "base debug ..."] [--deb DIR] SRC OUT
#
#   SRC          kernel tree (e.g. build/6.1/linux)
#   OUT          object directory (make O=OUT); bzImage ends up in
#                OUT/arch/x86/boot/bzImage
#   --fragments  names of scripts/kconfig/NAME.config to merge, in order
#                (default: $KCONFIG_FRAGMENTS or "base debug"); a name
#                containing '/' is taken as a path. kernel-patches/BASE/config
#                (the options this base names differently) is merged last.
#   --config-only  generate and check OUT/.config, do not build
#   --deb DIR    then package the kernel with the tree's bindeb-pkg into
#                DIR (linux-image-VERSION_*.deb, for installing it the way
#                a Debian system installs a kernel)
#
# The configuration is 'make tinyconfig' plus the fragments, merged with the
# tree's scripts/kconfig/merge_config.sh and completed by olddefconfig. It
# is generated in a scratch directory and only copied to OUT/.config when
# it differs, so an unchanged tree rebuilds nothing. Every option requested
# by a fragment is checked afterwards: Kconfig silently drops options whose
# dependencies are not met, and this script fails naming them instead.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

FRAGMENTS=${KCONFIG_FRAGMENTS:-base debug}
CONFIG_ONLY=0 DEB_DIR=''
while [ $# -gt 0 ]; do
	case $1 in
	--fragments) FRAGMENTS=$2; shift 2 ;;
	--config-only) CONFIG_ONLY=1; shift ;;
	--deb) DEB_DIR=$2; shift 2 ;;
	-h|--help) script_help "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option: $1" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || die "usage: $0 [--fragments \"base debug\"] [--deb DIR] SRC OUT"

SRC=$(cd "$1" && pwd) || die "no kernel tree at $1"
[ -f "$SRC/Makefile" ] || die "$SRC is not a kernel tree"
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
SCRATCH=$OUT.kconfig
LOG=$OUT.log

export CCACHE_DIR=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
# Relative paths in the cache keys: clones at other paths share the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$REPO_ROOT}
export CCACHE_NOHASHDIR=1
mkdir -p "$CCACHE_DIR"
ccache --max-size="${CCACHE_MAXSIZE:-5G}" >/dev/null

# Reproducible banner; also keeps init/version.o cacheable.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-"Mon Jan  1 00:00:00 UTC 2024"}
export KBUILD_BUILD_USER=wi
export KBUILD_BUILD_HOST=build

JOBS=${JOBS:-$(nproc)}
MAKE=(make -C "$SRC" ARCH=x86_64 CC="ccache gcc" -j"$JOBS")

frag_files=()
for f in $FRAGMENTS; do
	case $f in
	*/*) p=$f ;;	# a path, for trying out options
	*) p=$REPO_ROOT/scripts/kconfig/$f.config ;;
	esac
	[ -f "$p" ] || die "no config fragment $p"
	frag_files+=("$p")
done
if [ -f "$PATCH_DIR/config" ]; then
	frag_files+=("$PATCH_DIR/config")
fi

# --- configuration ----------------------------------------------------------
gen_config() {
	rm -rf "$SCRATCH"
	mkdir -p "$SCRATCH"
	"${MAKE[@]}" O="$SCRATCH" tinyconfig >"$SCRATCH.log" 2>&1 ||
		{ cat "$SCRATCH.log" >&2; die "make tinyconfig failed"; }
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$SCRATCH" \
		"$SCRATCH/.config" "${frag_files[@]}") >>"$SCRATCH.log" 2>&1 ||
		{ cat "$SCRATCH.log" >&2; die "merge_config.sh failed"; }
	"${MAKE[@]}" O="$SCRATCH" olddefconfig >>"$SCRATCH.log" 2>&1 ||
		{ cat "$SCRATCH.log" >&2; die "make olddefconfig failed"; }
}

# Check that each CONFIG_FOO=val / "# CONFIG_FOO is not set" line of the
# fragments holds in the final .config. A later fragment overrides an
# earlier one, as in merge_config.sh.
verify_config() {
	local cfg=$1 bad=0 sym want have
	declare -A req=() from=()
	local f line
	for f in "${frag_files[@]}"; do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
				req[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				req[${BASH_REMATCH[1]}]=n
			else
				continue
			fi
			from[${BASH_REMATCH[1]}]=${f#"$REPO_ROOT"/}
		done <"$f"
	done
	for sym in $(printf '%s\n' "${!req[@]}" | sort); do
		want=${req[$sym]}
		have=$(sed -n "s/^$sym=//p" "$cfg")
		[ -n "$have" ] || have=n
		if [ "$want" != "$have" ]; then
			echo "config: $sym=$want requested by ${from[$sym]} but the kernel config has $sym=$have" >&2
			bad=$((bad + 1))
		fi
	done
	if [ $bad -ne 0 ]; then
		echo "config: $bad option(s) did not survive merge_config.sh + olddefconfig" >&2
		echo "config: (unmet dependencies? see 'make -C $SRC O=$SCRATCH ARCH=x86_64 menuconfig', search for the symbol)" >&2
		return 1
	fi
}

# Inputs of the configuration; when unchanged the previous result stands.
config_key() {
	{
		echo "fragments=$FRAGMENTS"
		cat "${frag_files[@]}"
		git -C "$SRC" rev-parse HEAD 2>/dev/null || true
		git -C "$SRC" status --porcelain -- '*Kconfig*' 2>/dev/null || true
		sha256sum "$0" | cut -d' ' -f1
		gcc --version | head -1
	} | sha256sum | cut -d' ' -f1
}

key=$(config_key)
if [ -f "$OUT/.config" ] && [ -f "$OUT.config-key" ] &&
   [ "$(cat "$OUT.config-key")" = "$key" ]; then
	info "kernel config up to date ($FRAGMENTS)"
else
	info "generating kernel config: tinyconfig + $FRAGMENTS"
	gen_config
	verify_config "$SCRATCH/.config"
	if ! cmp -s "$SCRATCH/.config" "$OUT/.config"; then
		cp "$SCRATCH/.config" "$OUT/.config"
	fi
	echo "$key" >"$OUT.config-key"
fi

[ "$CONFIG_ONLY" = 0 ] || exit 0

# --- build ------------------------------------------------------------------------
info "building bzImage in $OUT (make -j$JOBS, CC='ccache gcc', log: $LOG)"
ccache --zero-stats >/dev/null
start=$(date +%s)
if ! "${MAKE[@]}" O="$OUT" bzImage >"$LOG" 2>&1; then
	tail -n 60 "$LOG" >&2
	die "kernel build failed (full log: $LOG)"
fi
end=$(date +%s)
# Fail on a config that changed under us (e.g. a patch added a Kconfig
# dependency that drops one of our options).
verify_config "$OUT/.config"
secs=$((end - start))
info "kernel built in ${secs}s: $OUT/arch/x86/boot/bzImage ($(stat -c %s "$OUT/arch/x86/boot/bzImage") bytes)"
ccache --print-stats 2>/dev/null | awk -F'\t' '
	$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hit += $2 }
	$1 == "cache_miss" { miss = $2 }
	END { printf "    ccache: %d hits, %d misses\n", hit, miss }' || true

# --- the Debian package -------------------------------------------------------------
if [ -n "$DEB_DIR" ]; then
	ensure_packages dpkg-dev rsync kmod cpio
	mkdir -p "$DEB_DIR"
	DEB_DIR=$(cd "$DEB_DIR" && pwd)
	# bindeb-pkg writes the packages next to the object directory
	rm -f "$(dirname "$OUT")"/linux-*.deb "$DEB_DIR"/linux-*.deb
	info "packaging with bindeb-pkg into $DEB_DIR (log: $OUT.deb.log)"
	if ! "${MAKE[@]}" O="$OUT" bindeb-pkg >"$OUT.deb.log" 2>&1; then
		tail -n 40 "$OUT.deb.log" >&2
		die "bindeb-pkg failed (full log: $OUT.deb.log)"
	fi
	mv "$(dirname "$OUT")"/linux-*.deb "$DEB_DIR"/
	rm -f "$(dirname "$OUT")"/linux-upstream_* "$(dirname "$OUT")"/linux-*.buildinfo \
		"$(dirname "$OUT")"/linux-*.changes
	ls "$DEB_DIR"/linux-image-*.deb >/dev/null 2>&1 || die "bindeb-pkg made no linux-image package"
fi
