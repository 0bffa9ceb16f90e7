#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fork's libnuma against upstream's 2.0.19 (built here from the same
# release tarball) and Debian 13's libnuma1 2.0.19-1 (fetched with apt):
#   - every version node of Debian's with the same parent, the fork's own
#     nodes (libnuma_wi_*) only after them;
#   - every symbol of Debian's in the same node, defaults alike, and no
#     other symbol in those nodes;
#   - a program built against upstream's headers and library that
#     references every symbol upstream exports (by name and version node)
#     runs with the fork's library, and one built against the fork's for
#     that same set runs with upstream's;
#   - a program that uses the fork's own calls does not load with
#     upstream's or Debian's library: the loader names the missing node.
# Debian 13's library needs glibc 2.38: on Debian 12 it is linked against
# but not run; upstream's, built here, runs in its place.
# TAP on stdout.
#
# usage: abi.sh [WORKDIR]   (default build/numactl/host-tests)
set -uo pipefail
# shellcheck source=/dev/null # numactl/host-tests/lib.sh, checked on its own
. "$(dirname "$0")/lib.sh"

host_test_setup "${1:-}"
DEBROOT=$(numactl_debian_root) || bail "cannot fetch Debian's libnuma1 $(numactl_version)"
A=$W/abi
rm -rf "$A"
mkdir -p "$A"
UP=$W/upstream/.libs/libnuma.so.1
FORK=$W/fork/.libs/libnuma.so.1
DEB=$DEBROOT/usr/lib/x86_64-linux-gnu/libnuma.so.1

# nodes LIB: "NODE PARENT" for each version node it defines
nodes() {
	readelf -V -W "$1" | awk '
		/^Version definition section/ { d = 1; next }
		/^Version needs section/ { d = 0 }
		d && /Name:/ && !/Flags: BASE/ { if (n != "") print n, "-"; n = $NF; next }
		d && /Parent 1:/ { print n, $NF; n = "" }
		END { if (n != "") print n, "-" }'
}

# symbols LIB: "NAME@NODE TYPE" (@@ for a default version) for each symbol
# it defines, version node names left out
symbols() {
	readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 ~ /@/ &&
		($4 == "FUNC" || $4 == "OBJECT") { print $8, $4 }' | sort
}

# program NAME SYMFILE: a C program whose data refer to every NAME@NODE of
# SYMFILE ("NAME@[@]NODE TYPE" lines), so that the loader must find each
# one by name and version node; it calls numa_available() too.
program() {
	local name=$1 list=$2 i=0 sym
	{
		echo '#include <numa.h>'
		echo '#include <stdio.h>'
		while read -r sym _; do
			sym=${sym/@@/@}
			echo "extern char abi_ref_${i}[];"
			echo "__asm__(\".symver abi_ref_$i, $sym\");"
			i=$((i + 1))
		done <"$list"
		echo 'void *abi_refs[] = {'
		for ((sym = 0; sym < i; sym++)); do echo "	abi_ref_$sym,"; done
		echo '};'
		echo 'int main(void)'
		echo '{'
		printf '\tprintf("%%zu symbols, numa_available() %%d\\n",\n'
		echo '	       sizeof(abi_refs) / sizeof(abi_refs[0]), numa_available());'
		echo '	return 0;'
		echo '}'
	} >"$A/$name.c"
}

# build NAME INCDIR LIB: compile $A/NAME.c against the numa.h in INCDIR
# and the libnuma LIB. Debian 13's needs glibc 2.38, which Debian 12 lacks:
# the library's own undefined references are not resolved here.
build() {
	gcc -O2 -Wall -Werror -I"$2" -o "$A/$1" "$A/$1.c" \
		-L"$(dirname "$3")" -l:"$(basename "$3")" \
		-Wl,--allow-shlib-undefined >"$A/$1.log" 2>&1
}

# runs DESC PROGRAM LIBDIR: PROGRAM loads (all references bound at once)
# and runs with the libnuma in LIBDIR
runs() {
	local out
	if out=$(LD_BIND_NOW=1 LD_LIBRARY_PATH=$3 "$A/$2" 2>&1); then
		ok "$1 ($out)"
	else
		not_ok "$1"
		comment <<<"$out"
	fi
}

echo "TAP version 13"

# --- version nodes -----------------------------------------------------------
nodes "$DEB" >"$A/nodes.debian"
nodes "$UP" >"$A/nodes.upstream"
nodes "$FORK" >"$A/nodes.fork"
comment <"$A/nodes.fork"
if cmp -s "$A/nodes.debian" "$A/nodes.upstream"; then
	ok "upstream's libnuma built here has the version nodes of Debian 13's libnuma1 $(numactl_version)"
else
	not_ok "upstream's libnuma built here has the version nodes of Debian 13's libnuma1"
	diff -u "$A/nodes.debian" "$A/nodes.upstream" | comment
fi
n=$(wc -l <"$A/nodes.debian")
if [ "$n" -ge 8 ] && [ "$(head -n "$n" "$A/nodes.fork")" = "$(cat "$A/nodes.debian")" ]; then
	ok "the fork has Debian's $n version nodes, in order, with the same parents"
else
	not_ok "the fork has Debian's $n version nodes, in order, with the same parents"
	diff -u "$A/nodes.debian" "$A/nodes.fork" | comment
fi
extra=$(tail -n +"$((n + 1))" "$A/nodes.fork")
last=$(tail -n 1 "$A/nodes.debian" | cut -d' ' -f1)
if [ "$extra" = "libnuma_wi_1.0 $last
libnuma_wi_1.1 libnuma_wi_1.0" ]; then
	ok "the fork's own nodes: libnuma_wi_1.0 after $last, libnuma_wi_1.1 after it"
else
	not_ok "the fork's own nodes: libnuma_wi_1.0 after $last, libnuma_wi_1.1 after it"
	comment <<<"$extra"
fi

# --- symbols -----------------------------------------------------------------
symbols "$DEB" >"$A/syms.debian"
symbols "$UP" >"$A/syms.upstream"
symbols "$FORK" >"$A/syms.fork"
if cmp -s "$A/syms.debian" "$A/syms.upstream"; then
	ok "upstream's libnuma built here exports Debian's $(wc -l <"$A/syms.debian") symbols"
else
	not_ok "upstream's libnuma built here exports Debian's symbols"
	diff -u "$A/syms.debian" "$A/syms.upstream" | comment
fi
grep -v '@@*libnuma_wi_' "$A/syms.fork" >"$A/syms.fork-upstream-nodes"
if cmp -s "$A/syms.debian" "$A/syms.fork-upstream-nodes"; then
	ok "the fork exports Debian's symbols in Debian's nodes, and no other symbol in those nodes"
else
	not_ok "the fork exports Debian's symbols in Debian's nodes, and no other symbol in those nodes"
	diff -u "$A/syms.debian" "$A/syms.fork-upstream-nodes" | comment
fi
grep '@@*libnuma_wi_' "$A/syms.fork" >"$A/syms.wi"
comment <"$A/syms.wi"

# --- programs built against one, run with the other -------------------------
program upstream-all "$A/syms.upstream"
if build upstream-all "$W/upstream" "$UP"; then
	runs "built against upstream 2.0.19, referencing its $(wc -l <"$A/syms.upstream") symbols: runs with upstream's libnuma" \
		upstream-all "$W/upstream/.libs"
	runs "built against upstream 2.0.19, referencing its $(wc -l <"$A/syms.upstream") symbols: runs with the fork's libnuma" \
		upstream-all "$W/fork/.libs"
else
	not_ok "a program referencing every symbol of upstream's libnuma builds against it"
	comment <"$A/upstream-all.log"
fi
program debian-all "$A/syms.debian"
if build debian-all "$DEBROOT/usr/include" "$DEB"; then
	runs "built against Debian 13's libnuma-dev, referencing every symbol: runs with the fork's libnuma" \
		debian-all "$W/fork/.libs"
else
	not_ok "a program referencing every symbol of Debian's libnuma builds against it"
	comment <"$A/debian-all.log"
fi
program fork-upstream-set "$A/syms.upstream"
if build fork-upstream-set "$W/fork" "$FORK"; then
	runs "built against the fork, referencing upstream's symbols: runs with upstream's libnuma" \
		fork-upstream-set "$W/upstream/.libs"
else
	not_ok "a program referencing upstream's symbols builds against the fork"
	comment <"$A/fork-upstream-set.log"
fi

# --- the fork's own calls need the fork --------------------------------------
program fork-wi "$A/syms.wi"
if build fork-wi "$W/fork" "$FORK"; then
	runs "built against the fork, referencing its $(wc -l <"$A/syms.wi") own symbols: runs with it" \
		fork-wi "$W/fork/.libs"
	for lib in "$W/upstream/.libs" "$(dirname "$DEB")"; do
		out=$(LD_LIBRARY_PATH=$lib "$A/fork-wi" 2>&1)
		rc=$?
		if [ "$rc" != 0 ] && grep -q "version .libnuma_wi_1\.[01]' not found" <<<"$out"; then
			ok "... and does not load with $([ "$lib" = "$W/upstream/.libs" ] && echo "upstream's" || echo "Debian's") libnuma: a libnuma_wi node is missing"
		else
			not_ok "... and does not load with the libnuma in $lib"
		fi
		comment <<<"$out"
	done
else
	not_ok "a program referencing the fork's own symbols builds against it"
	comment <"$A/fork-wi.log"
fi

tap_end
