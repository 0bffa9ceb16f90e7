#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DAMON's sysfs tree as the kernel builds it, against the one bwapd's host
# test writes its schemes into (TAP).  bwapd's tests/damon.c checks what
# bwapd writes under a fake DAMON sysfs made from the file
# /usr/share/bwapd/tests/damon-sysfs.tree; this program builds, in the
# kernel's own DAMON sysfs, the shape that file lists - one kdamond with
# one context, two targets, two schemes with three core filters and four
# destinations each - lists every file and directory of it, and compares.
# So the host test's tree cannot drift from the kernel's.  Needs DAMON's
# sysfs interface with weighted destinations (Linux 6.17 and later) and no
# kdamond in it; turns damon_stat off while it runs, and back.  The
# kernel's list is in the output ("# tree: "), to write the file anew.
set -u

# shellcheck source=selftests/helpers/wi_tap.sh
. /usr/lib/wi/wi_tap.sh

A=/sys/kernel/mm/damon/admin
TREE=/usr/share/bwapd/tests/damon-sysfs.tree
DS=/sys/module/damon_stat/parameters/enabled
need $TREE
if [ ! -d $A ]; then
	echo "1..0 # SKIP no DAMON sysfs interface"
	exit 0
fi
if [ "$(cat $A/kdamonds/nr_kdamonds)" != 0 ]; then
	echo "1..0 # SKIP another program's kdamond in $A"
	exit 0
fi
ds=$(cat $DS 2>/dev/null)
[ "$ds" = Y ] && echo N >$DS

# put VALUE FILE: write, and say which write failed
put() {
	echo "$1" >"$2" || { echo "# writing $1 into $2 failed"; return 1; }
}
C=$A/kdamonds/0/contexts/0
rc=0
put 1 $A/kdamonds/nr_kdamonds && put 1 $A/kdamonds/0/contexts/nr_contexts &&
	put vaddr $C/operations && put 2 $C/targets/nr_targets &&
	put 2 $C/schemes/nr_schemes || rc=1
check "the shape built: a kdamond, a context, two targets, two schemes" 0 $rc
if [ ! -d $C/schemes/0/dests ]; then
	skip "no weighted destinations (schemes/<N>/dests: Linux 6.17 and later)"
	skip "the tree: no weighted destinations"
else
	for s in 0 1; do
		put 3 $C/schemes/$s/core_filters/nr_filters || rc=1
		put 4 $C/schemes/$s/dests/nr_dests || rc=1
	done
	check "the schemes' filters and destinations made" 0 $rc
	# every path below admin/, a directory with a trailing slash
	(cd $A && find . -mindepth 1) | while read -r p; do
		if [ -d "$A/$p" ]; then echo "${p#./}/"; else echo "${p#./}"; fi
	done | LC_ALL=C sort >/tmp/damon-tree
	sed 's/^/# tree: /' /tmp/damon-tree
	if LC_ALL=C sort $TREE | diff -u - /tmp/damon-tree >/tmp/damon-tree.diff; then
		ok "the tree is the kernel's ($(wc -l </tmp/damon-tree) paths)"
	else
		not_ok "the tree is the kernel's"
		sed 's/^/# /' /tmp/damon-tree.diff
	fi
fi
echo 0 >$A/kdamonds/nr_kdamonds
check "no kdamond left" 0 "$(cat $A/kdamonds/nr_kdamonds)"
[ "$ds" = Y ] && echo Y >$DS
rm -f /tmp/damon-tree /tmp/damon-tree.diff
echo "1..$n"
[ $fail -eq 0 ]
