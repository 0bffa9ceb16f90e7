#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build numactl with the patches in numactl/: upstream's release tarball
# (the orig tarball of Debian's source package numactl/version, fetched
# through a private apt configuration and checked against
# numactl/orig.sha256), numactl/series applied, configured, built, with
# numactl's test programs, and installed into a staging root.
#
# usage: build-numactl.sh
#
# Writes, under build/numactl/:
#   src/    the patched source tree, built in place
#   root/   "make install DESTDIR=root" (prefix /usr, Debian's libdir)
#   guest/  what the test machine gets: the programs and libnuma of root/,
#           bash and grep for numactl's test scripts, numactl's test suite in
#           /usr/lib/numactl-tests (laid out as its build tree, which the
#           scripts expect) and the project's tests in /selftests
# A rebuild happens only when the version, the series, a patch or a test
# changed.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) script_help "$0"; exit 0 ;; esac

PDIR=$REPO_ROOT/numactl
NDIR=$BUILD_DIR/numactl
NUMACTL_VERSION=$(numactl_version)
SERIES=()
while read -r p; do SERIES+=("$p"); done < <(
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PDIR/series" | grep -v '^$' || true)

stamp=$( (echo "$NUMACTL_VERSION"; cat "$PDIR/orig.sha256" "$PDIR/series" \
	"$PDIR"/*.patch "$PDIR"/tests/* "$0") | sha256sum | cut -c1-16)
if [ -f "$NDIR/stamp" ] && [ "$(cat "$NDIR/stamp")" = "$stamp" ] &&
	[ -x "$NDIR/guest/usr/bin/numactl" ]; then
	info "numactl $NUMACTL_VERSION up to date (${#SERIES[@]} patches): $NDIR/guest"
	exit 0
fi

# --- source -----------------------------------------------------------------
tarball=$(numactl_orig_tarball)

# --- patch ------------------------------------------------------------------
SRC=$NDIR/src
rm -rf "$SRC" "$NDIR/root" "$NDIR/guest" "$NDIR/stamp"
mkdir -p "$SRC"
tar -xzf "$tarball" -C "$SRC" --strip-components=1
for p in "${SERIES[@]}"; do
	patch -d "$SRC" -p1 --batch --forward --quiet < "$PDIR/$p" ||
		die "numactl/$p does not apply to numactl $NUMACTL_VERSION"
done
info "numactl ${NUMACTL_VERSION%-*} + ${#SERIES[@]} patches in $SRC"

# --- build ------------------------------------------------------------------
log=$NDIR/build.log
info "building numactl (log: $log)"
(
	cd "$SRC"
	autoreconf -fi
	./configure --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu
	make -j2
	make -j2 check TESTS=
	make install DESTDIR="$NDIR/root"
	for t in "$PDIR"/tests/*.c; do
		# Built against this libnuma, as a program would be against
		# an installed one.
		./libtool --mode=link --tag=CC gcc -O2 -Wall -Wextra -Werror \
			-I. -o "test/$(basename "$t" .c)" "$t" libnuma.la
	done
) >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "numactl build failed (see $log)"; }

# --- what the test machine gets ---------------------------------------------
G=$NDIR/guest
T=$G/usr/lib/numactl-tests
mkdir -p "$G/usr/bin" "$G/bin" "$G/selftests" "$T/test"
cp -a "$NDIR/root/usr/bin/." "$G/usr/bin/"
mkdir -p "$G/usr/lib/x86_64-linux-gnu"
cp -a "$NDIR/root/usr/lib/x86_64-linux-gnu/"libnuma.so* "$G/usr/lib/x86_64-linux-gnu/"
# The shell and the GNU grep (-P) numactl's test scripts use.
cp /bin/bash /bin/grep "$G/bin/"
# numactl's test suite expects its build tree: programs in builddir, test
# programs and scripts in builddir/test.
for b in numactl numademo memhog migratepages migspeed numastat; do
	ln -sf "/usr/bin/$b" "$T/$b"
done
(cd "$SRC/test" && for f in *; do
	if [ -x ".libs/$f" ]; then
		cp ".libs/$f" "$T/test/$f"
	elif [ -f "$f" ] && [ -x "$f" ] && head -c 2 "$f" | grep -q '#!'; then
		cp "$f" "$T/test/$f"
	fi
done)
# The tests "make check" runs, in its order.
# shellcheck disable=SC2016 # $(TESTS) is make's, not the shell's
make -s -C "$SRC" -f Makefile -f - print-tests <<<'print-tests: ; @echo $(TESTS)' |
	tr ' ' '\n' | grep -v '^$' > "$T/tests.list"
for t in "$PDIR"/tests/*.sh; do
	install -m 0755 "$t" "$G/selftests/$(basename "$t" .sh)"
done
echo "$stamp" > "$NDIR/stamp"
info "numactl built: $(wc -l < "$T/tests.list") suite tests, guest tree $G"
