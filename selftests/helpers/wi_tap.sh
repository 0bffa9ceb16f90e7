# SPDX-License-Identifier: GPL-2.0
#
# TAP for the shell tests of the test machine, sourced by each
# (/usr/lib/wi/wi_tap.sh): ok, not_ok, skip and check number the lines;
# n counts them, fail the failures.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# check LABEL EXPECTED GOT
check() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "#   expected '$2', got '$3'"; fi; }
# need FILE...: the whole program is skipped unless every FILE is there
need() {
	for f in "$@"; do
		if [ ! -e "$f" ]; then
			echo "1..0 # SKIP $f not in the image"
			exit 0
		fi
	done
}
