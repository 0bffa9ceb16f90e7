#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# numactl's own test suite - the tests its "make check" runs, in the same
# order and with the same environment - in the test machine, as TAP.
# An exit status of 77 is a skip, as for automake.

B=/usr/lib/numactl-tests
mapfile -t TESTS < "$B/tests.list"
echo "1..${#TESTS[@]}"
n=0 failed=0
for t in "${TESTS[@]}"; do
	n=$((n + 1))
	out=$(cd "$B/test" && builddir=$B srcdir=$B timeout 600 "$B/$t" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "ok $n - $t"
	elif [ "$rc" = 77 ]; then
		echo "ok $n - $t # SKIP exit status 77"
	else
		echo "not ok $n - $t (exit status $rc)"
		failed=1
	fi
	[ "$rc" = 0 ] || sed 's/^/# /' <<<"$out" | tail -n 40
done
exit "$failed"
