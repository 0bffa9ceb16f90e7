# SPDX-License-Identifier: GPL-2.0
# Common helpers sourced by the scripts in this directory.
# shellcheck shell=bash

# Repository root (the directory holding scripts/).
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export REPO_ROOT
BUILD_DIR=${BUILD_DIR:-$REPO_ROOT/build}
export BUILD_DIR

# The kernel base: one directory of kernel-patches/ per Debian kernel
# series (kernel-patches/BASE/series, its patches, and version, the pinned
# linux-source-BASE package version). $BASE picks one; the default is the
# base of the README's demo.
DEFAULT_BASE=6.1
BASE=${BASE:-$DEFAULT_BASE}
export BASE
PATCH_DIR=$REPO_ROOT/kernel-patches/$BASE
[ -f "$PATCH_DIR/series" ] ||
	{ echo "error: no kernel base '$BASE' (no kernel-patches/$BASE/series)" >&2; exit 1; }
# Everything built for the base: build/BASE/{linux,kernel,kernel-bench,series}
BASE_BUILD=$BUILD_DIR/$BASE
export PATCH_DIR BASE_BUILD

# Debian package providing the kernel tree.
export KSRC_PKG=linux-source-$BASE
export KSRC_TARBALL=/usr/src/linux-source-$BASE.tar.xz

die() {
	echo "error: $*" >&2
	exit 1
}

warn() {
	echo "warning: $*" >&2
}

info() {
	echo "==> $*"
}

pinned_kernel_version() {
	local v
	v=$(tr -d '[:space:]' < "$PATCH_DIR/version")
	[ -n "$v" ] || die "kernel-patches/$BASE/version is empty"
	echo "$v"
}

installed_pkg_version() {
	# dpkg-query fails for a package dpkg never heard of: not installed
	{ dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null ||
		true; } | awk '$1 == "ii" { print $2 }'
}

# Install the Debian packages among "$@" that are missing (as root; as
# another user, fail naming them).
ensure_packages() {
	local p missing=()
	for p in "$@"; do
		[ -n "$(installed_pkg_version "$p")" ] || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root to install them)"
	info "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
}

# The kernel bases, oldest first: the directories of kernel-patches/ that
# hold a series.
kernel_bases() {
	local d
	for d in "$REPO_ROOT"/kernel-patches/*/series; do
		d=${d%/series}
		echo "${d##*/}"
	done | sort -V
}

# Patch file names listed in kernel-patches/BASE/series, in order. Blank
# lines and '#' comments are ignored.
series_patches() {
	local series=$PATCH_DIR/series
	[ -f "$series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$series" |
		grep -v '^$' || true
}

# Apply the series onto the git tree in $1 with a fixed identity so the
# resulting commit ids are reproducible. Returns non-zero after printing
# which patch failed.
export GIT_COMMITTER_NAME="WI Build"
export GIT_COMMITTER_EMAIL="wi-build@localhost"
export GIT_COMMITTER_DATE="2024-01-01T00:00:00+0000"
export GIT_AUTHOR_NAME="WI Build"
export GIT_AUTHOR_EMAIL="wi-build@localhost"

git_tree() {
	local dir=$1
	shift
	git -C "$dir" -c user.name="$GIT_COMMITTER_NAME" \
		-c user.email="$GIT_COMMITTER_EMAIL" \
		-c core.autocrlf=false -c gc.auto=0 "$@"
}

# Print the comment block at the top of script $1 (after the SPDX line),
# which documents its usage.
script_help() {
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$1"
}

# debian_mirror: the Debian archive this machine's apt takes its packages
# from (its own sources, whatever the host: a local mirror or a proxy),
# for the private apt configurations and the roots mmdebstrap builds;
# $DEBIAN_MIRROR overrides it.  apt's own view of its sources first (the
# release files of Debian's archive, not Debian-Security's), then the
# sources files themselves (deb822 and one-line) where apt has no lists.
debian_mirror() {
	local m
	if [ -n "${DEBIAN_MIRROR:-}" ]; then
		echo "${DEBIAN_MIRROR%/}"
		return
	fi
	m=$(apt-cache policy 2>/dev/null | awk '
		$1 ~ /^[0-9]+$/ && $2 ~ /^[a-z+]+:\/\// { uri = $2; next }
		/ release / && /o=Debian,/ && /l=Debian,/ && uri != "" { print uri; exit }')
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			/etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
			/^deb / {
				opt = 0
				for (i = 2; i <= NF; i++) {
					if ($i ~ /^\[/)
						opt = 1
					if (!opt)
						break
					if ($i ~ /\]$/)
						opt = 0
				}
				if (i < NF && $(i + 1) !~ /-security/) { print $i; exit }
			}
			/^URIs:/ { uri = $2 }
			/^Suites:/ && uri != "" && $0 !~ /-security/ { print uri; exit }
			/^$/ { uri = "" }')
	fi
	[ -n "$m" ] || die "no Debian archive in this machine's apt sources (set DEBIAN_MIRROR)"
	echo "${m%/}"
}

# Debian's stock kernels, for comparison: the vmlinuz of the newest Debian
# cloud kernel of upstream series $1 (default 6.12), fetched once into
# $BUILD_DIR/upstream. Prints its path.
#   6.1   linux-image-6.1.0-*-cloud-amd64-unsigned, Debian 12's own kernel
#         (no weighted interleave at all), from the machine's own apt
#         sources
#   6.12  linux-image-6.12.*+deb12-cloud-amd64-unsigned, from the machine's
#         own apt sources (Debian 12)
#   7.3   linux-binary-7.3.*+deb13-cloud-amd64 (the kernel image that
#         linux-image-7.3.*+deb13-cloud-amd64 depends on), from
#         trixie-backports through a private apt configuration (the
#         machine's is left alone)
# $UPSTREAM_PKG overrides the package name.
upstream_kernel() {
	local series=${1:-6.12} dir=$BUILD_DIR/upstream pkg deb re
	local apt=()
	case $series in
	6.1) re='^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' ;;
	6.12) re='^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned$' ;;
	7.3)
		re='^linux-binary-7\.3\.[0-9]+\+deb13-cloud-amd64$'
		apt=(-o "Dir::Etc::SourceList=$dir/apt-$series/sources.list"
		     -o Dir::Etc::SourceParts=/dev/null
		     -o "Dir::State::Lists=$dir/apt-$series/lists"
		     -o "Dir::Cache=$dir/apt-$series/cache"
		     -o APT::Sandbox::User=root)
		mkdir -p "$dir/apt-$series/lists/partial" \
			"$dir/apt-$series/cache/archives/partial"
		echo "deb $(debian_mirror) trixie-backports main" \
			>"$dir/apt-$series/sources.list"
		if [ -z "$(find "$dir/apt-$series/lists" -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
			apt-get "${apt[@]}" update >"$dir/apt-$series.log" 2>&1 ||
				die "apt-get update for trixie-backports failed (see $dir/apt-$series.log)"
		fi
		;;
	*) die "no upstream kernel series '$series' (known: 6.1 6.12 7.3)" ;;
	esac
	pkg=${UPSTREAM_PKG:-$(apt-cache "${apt[@]}" search --names-only "$re" |
		awk '{ print $1 }' | sort -V | tail -n 1)}
	[ -n "$pkg" ] || die "no linux-image-$series cloud kernel in the archive (apt-get update?)"
	mkdir -p "$dir"
	if [ ! -f "$dir/$pkg.vmlinuz" ]; then
		info "fetching $pkg" >&2
		rm -rf "$dir/tmp" && mkdir -p "$dir/tmp"
		(cd "$dir/tmp" &&
		 apt-get "${apt[@]}" download "$pkg" >/dev/null) ||
			die "apt-get download $pkg failed"
		dpkg-deb -x "$dir"/tmp/*.deb "$dir/tmp/x"
		deb=$(find "$dir/tmp/x/boot" "$dir/tmp/x/usr/lib/modules" \
			-name 'vmlinuz*' 2>/dev/null | head -n 1)
		[ -n "$deb" ] || die "$pkg has no vmlinuz"
		mv "$deb" "$dir/$pkg.vmlinuz"
		rm -rf "$dir/tmp"
	fi
	echo "$dir/$pkg.vmlinuz"
}

# numactl: the version of Debian's source package whose upstream tarball
# the fork is built from (numactl/version, e.g. 2.0.19-1), and the
# private apt configuration that reaches Debian 13 (trixie), where that
# version is: the machine's own sources are left alone.
numactl_version() {
	local v
	v=$(tr -d '[:space:]' < "$REPO_ROOT/numactl/version")
	[ -n "$v" ] || die "numactl/version is empty"
	echo "$v"
}

numactl_apt() {
	local aptdir=$BUILD_DIR/numactl/apt
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
	local mirror
	mirror=$(debian_mirror)
	printf '%s\n' "deb $mirror trixie main" \
		"deb-src $mirror trixie main" > "$aptdir/sources.list"
	NUMACTL_APT=(-o "Dir::Etc::SourceList=$aptdir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
		-o APT::Sandbox::User=root)
	# trixie's lists of the last day (a build tree of an older version
	# may hold another suite's)
	if [ -z "$(find "$aptdir/lists" -name '*_trixie_*Sources*' -mtime -1 2>/dev/null)" ]; then
		apt-get "${NUMACTL_APT[@]}" update >"$aptdir.log" 2>&1 ||
			die "apt-get update for trixie failed (see $aptdir.log)"
	fi
}

# Print the path of upstream's release tarball, numactl_UPSTREAM.orig.tar.gz
# of Debian's source package numactl/version, fetched once into
# build/numactl/pkg with "apt-get source --download-only" and checked
# against numactl/orig.sha256. The archive may serve the tarball without
# the .dsc and debian.tar.xz of that version: only the tarball is used.
numactl_orig_tarball() {
	local v up dir tarball
	v=$(numactl_version)
	up=${v%-*}
	dir=$BUILD_DIR/numactl/pkg
	tarball=$dir/numactl_$up.orig.tar.gz
	if ! (cd "$dir" 2>/dev/null && sha256sum --quiet -c "$REPO_ROOT/numactl/orig.sha256") \
		>/dev/null 2>&1; then
		mkdir -p "$dir"
		rm -f "$tarball"
		numactl_apt
		info "fetching numactl $v source (numactl_$up.orig.tar.gz)" >&2
		(cd "$dir" && apt-get "${NUMACTL_APT[@]}" source --download-only \
			"numactl=$v") >>"$BUILD_DIR/numactl/apt.log" 2>&1 || true
		[ -f "$tarball" ] ||
			die "numactl $v is not in Debian's archive (see $BUILD_DIR/numactl/apt.log); update numactl/version"
		(cd "$dir" && sha256sum --quiet -c "$REPO_ROOT/numactl/orig.sha256") >&2 ||
			die "$tarball does not match numactl/orig.sha256"
	fi
	echo "$tarball"
}

# Debian 13's binary packages of numactl/version (libnuma1, libnuma-dev),
# the reference for the fork's ABI: fetched once into build/numactl/debian
# with "apt-get download" and unpacked into build/numactl/debian/root.
# Prints that root.
numactl_debian_root() {
	local v dir p
	v=$(numactl_version)
	dir=$BUILD_DIR/numactl/debian
	if [ ! -f "$dir/root/usr/include/numa.h" ]; then
		rm -rf "$dir" && mkdir -p "$dir/root"
		numactl_apt
		info "fetching Debian's libnuma1 and libnuma-dev $v" >&2
		(cd "$dir" && apt-get "${NUMACTL_APT[@]}" download "libnuma1=$v" \
			"libnuma-dev=$v") >>"$BUILD_DIR/numactl/apt.log" 2>&1 ||
			die "apt-get download libnuma1=$v failed (see $BUILD_DIR/numactl/apt.log)"
		for p in "$dir"/*.deb; do dpkg-deb -x "$p" "$dir/root"; done
	fi
	echo "$dir/root"
}

# Package tests' clean Debian roots.  clean_root_enter TARBALL ROOT
# unpacks TARBALL (made by mmdebstrap) into an emptied ROOT and mounts
# /dev, /proc and /sys there, with the host's resolv.conf; clean_root_umount
# ROOT undoes the mounts (call it on exit).  in_root CMD runs CMD in $ROOT
# with a clean environment.
clean_root_umount() {
	local m
	for m in sys proc dev; do
		if mountpoint -q "$1/$m"; then umount -l "$1/$m"; fi
	done
}
clean_root_enter() {
	local tarball=$1 root=$2
	clean_root_umount "$root"
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$tarball" || { echo "cannot unpack $tarball" >&2; return 1; }
	if ! mount --bind /dev "$root/dev" || ! mount -t proc proc "$root/proc" ||
		! mount --rbind /sys "$root/sys"; then
		echo "cannot mount /dev, /proc, /sys in $root" >&2
		return 1
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}
in_root() {
	# shellcheck disable=SC2153 # the caller's ROOT
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@"
}
