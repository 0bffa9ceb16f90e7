# SPDX-License-Identifier: GPL-2.0
# Sourced by the host tests of numactl/host-tests: upstream numactl and
# the fork, each built from the same release tarball, the fork with
# numactl/series applied.
# shellcheck shell=bash

# shellcheck source=/dev/null # scripts/lib.sh, checked on its own
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

TAP_N=0 TAP_FAILED=0
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $*"; }
comment() { sed 's/^/# /'; }
bail() { echo "Bail out! $*"; exit 1; }
tap_end() { echo "1..$TAP_N"; [ "$TAP_FAILED" -eq 0 ]; }

# build_both WORKDIR: WORKDIR/upstream and WORKDIR/fork, configured for
# /usr and built in place (libnuma, numactl). Rebuilt only when the
# tarball, the series or a patch changed.
build_both() {
	local w=$1 tarball stamp t p
	tarball=$(numactl_orig_tarball) || return 1
	stamp=$( (cat "$REPO_ROOT/numactl/orig.sha256" "$REPO_ROOT/numactl/series" \
		"$REPO_ROOT"/numactl/*.patch) | sha256sum | cut -c1-16)
	if [ "$(cat "$w/stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -x "$w/upstream/.libs/numactl" ] && [ -x "$w/fork/.libs/numactl" ]; then
		return 0
	fi
	rm -rf "$w/upstream" "$w/fork" "$w/stamp"
	mkdir -p "$w/upstream"
	tar -xzf "$tarball" -C "$w/upstream" --strip-components=1
	(cd "$w/upstream" && autoreconf -fi) >"$w/build.log" 2>&1 || return 1
	cp -a "$w/upstream" "$w/fork"
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_ROOT/numactl/series" |
	while read -r p; do
		patch -d "$w/fork" -p1 --batch --forward --quiet \
			< "$REPO_ROOT/numactl/$p" || exit 1
	done >>"$w/build.log" 2>&1 || return 1
	for t in upstream fork; do
		(cd "$w/$t" && ./configure --prefix=/usr \
			--libdir=/usr/lib/x86_64-linux-gnu && make -j2 libnuma.la numactl) \
			>>"$w/build.log" 2>&1 || return 1
	done
	echo "$stamp" >"$w/stamp"
}

# The work directory of a host test (its first argument, default
# build/numactl/host-tests) in W, made absolute, with both builds in it.
host_test_setup() {
	W=${1:-$BUILD_DIR/numactl/host-tests}
	mkdir -p "$W"
	W=$(cd "$W" && pwd)
	build_both "$W" || bail "building upstream numactl and the fork failed (see $W/build.log)"
}
