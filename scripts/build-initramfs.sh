#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test initramfs: busybox-static with its applet links, /init
# (scripts/vm-init.sh), the in-guest checks (/wi/checks) and the test
# programs.
#
# usage: build-initramfs.sh [--out FILE] [--selftests DIR] [--extra SRC:DEST]...
#                           [--host PATH]... [--root DIR]...
#
#   --out FILE       gzip'ed newc cpio to write (default build/initramfs.cpio.gz)
#   --selftests DIR  every executable directly in DIR goes to /selftests/
#                    (default build/selftests; may be empty or missing)
#   --extra SRC:DEST every executable directly in SRC goes to DEST in the
#                    guest, e.g. --extra /usr/local/bin:/usr/local/bin.
#                    Repeatable; $INITRAMFS_EXTRA may hold more, space
#                    separated.
#   --host PATH      the host's program PATH (e.g. /usr/bin/setpriv) at the
#                    same path in the guest, with its libraries. Repeatable.
#   --root DIR       every file and symbolic link under DIR goes to the same
#                    path under / in the guest (e.g. an install tree made
#                    with DESTDIR=DIR); the libraries its programs need are
#                    resolved in DIR first. Repeatable.
#
# Dynamically linked programs are fine: the libraries and the ELF
# interpreter they need (as ldd resolves them on this host) are copied
# along at the same paths. Shell scripts run under busybox sh.
#
# The archive is written with the kernel's usr/gen_init_cpio (built from
# $KSRC, default build/6.1/linux), so device nodes need no root and the
# output is reproducible: an unchanged input leaves the file untouched.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

OUT=$BUILD_DIR/initramfs.cpio.gz
SELFTESTS=$BUILD_DIR/selftests
KSRC=${KSRC:-$BUILD_DIR/6.1/linux}
read -r -a EXTRA <<<"${INITRAMFS_EXTRA:-}"
ROOTS=()
HOSTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=$2; shift 2 ;;
	--selftests) SELFTESTS=$2; shift 2 ;;
	--extra) EXTRA+=("$2"); shift 2 ;;
	--root) ROOTS+=("$2"); shift 2 ;;
	--host) HOSTS+=("$2"); shift 2 ;;
	-h|--help) script_help "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

BUSYBOX=${BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found (apt-get install busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked; install busybox-static"
fi

# --- gen_init_cpio ------------------------------------------------------------
GEN=$BUILD_DIR/tools/gen_init_cpio
GEN_SRC=$KSRC/usr/gen_init_cpio.c
[ -f "$GEN_SRC" ] || die "$GEN_SRC missing (run scripts/kernel-source.sh first)"
if [ ! -x "$GEN" ] || [ "$GEN_SRC" -nt "$GEN" ]; then
	mkdir -p "$(dirname "$GEN")"
	gcc -O2 -o "$GEN" "$GEN_SRC"
fi

# --- file list ------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LIST=$WORK/list
declare -A seen=()

emit() { printf '%s\n' "$*" >>"$LIST"; }

add_dir() {
	# add_dir /a/b/c: the directory and its parents
	local d=$1 parent
	[ "$d" != / ] && [ -n "$d" ] || return 0
	[ -z "${seen[$d]:-}" ] || return 0
	parent=$(dirname "$d")
	add_dir "$parent"
	seen[$d]=dir
	emit "dir $d 0755 0 0"
}

add_file() {
	# add_file GUEST_PATH HOST_FILE MODE
	local g=$1 h=$2 mode=$3
	if [ -n "${seen[$g]:-}" ]; then
		[ "${seen[$g]}" = "$h" ] || warn "initramfs: $g already provided by ${seen[$g]}, ignoring $h"
		return 0
	fi
	add_dir "$(dirname "$g")"
	seen[$g]=$h
	emit "file $g $h $mode 0 0"
}

# Libraries and interpreter of a dynamically linked ELF, as ldd resolves
# them; those found under the optional second argument (a --root tree) are
# left out, the tree brings them itself.
add_libs() {
	local exe=$1 tree=${2:-} lib
	ldd "$exe" >/dev/null 2>&1 || return 0
	while read -r lib; do
		[ -z "$tree" ] || [[ $lib != "$tree"/* ]] || continue
		add_file "$lib" "$(readlink -f "$lib")" 0755
	done < <(ldd "$exe" | grep -o '/[^ ]*' | sort -u)
}

# add_root DIR: DIR/x goes to /x, links as links.
add_root() {
	local root f g libpath
	root=$(cd "$1" && pwd) || die "--root $1: no such directory"
	libpath=$(find "$root" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
	while IFS= read -r -d '' f; do
		g=${f#"$root"}
		if [ -L "$f" ]; then
			[ -z "${seen[$g]:-}" ] || continue
			add_dir "$(dirname "$g")"
			seen[$g]="link"
			emit "slink $g $(readlink "$f") 0777 0 0"
		else
			add_file "$g" "$f" "$(stat -c %a "$f")"
			if [ -x "$f" ]; then
				LD_LIBRARY_PATH=$libpath add_libs "$f" "$root"
			fi
		fi
	done < <(find "$root" -mindepth 1 \( -type f -o -type l \) -print0 | sort -z)
	info "initramfs: $root -> /"
}

# add_exes SRC_DIR GUEST_DIR: executables directly in SRC_DIR
add_exes() {
	local src=$1 dst=$2 f n=0
	add_dir "$dst"
	[ -d "$src" ] || { info "initramfs: $src does not exist, nothing for $dst"; return 0; }
	while IFS= read -r -d '' f; do
		[ -x "$f" ] || continue
		add_file "$dst/$(basename "$f")" "$(readlink -f "$f")" 0755
		add_libs "$f"
		n=$((n + 1))
	done < <(find "$src"/ -mindepth 1 -maxdepth 1 \( -type f -o -type l \) -print0 | sort -z)
	info "initramfs: $n executable(s) from $src -> $dst"
}

: >"$LIST"
for d in /dev /proc /sys /tmp /root /etc /bin /sbin /usr/bin /usr/sbin /wi/checks; do
	add_dir "$d"
done
emit "nod /dev/console 0600 0 0 c 5 1"
emit "nod /dev/null 0666 0 0 c 1 3"
emit "nod /dev/ttyS0 0660 0 0 c 4 64"
emit "nod /dev/ttyS1 0660 0 0 c 4 65"

# Before busybox's applets: a tree's programs win over applets of the
# same name.
for r in "${ROOTS[@]}"; do
	add_root "$r"
done
for h in "${HOSTS[@]}"; do
	[ -x "$h" ] || die "--host $h: no such program on this host"
	add_dir "$(dirname "$h")"
	add_file "$h" "$(readlink -f "$h")" 0755
	add_libs "$h"
done

add_file /bin/busybox "$(readlink -f "$BUSYBOX")" 0755
while read -r applet; do
	[ "/$applet" != /bin/busybox ] || continue
	[ -z "${seen[/$applet]:-}" ] || continue
	add_dir "$(dirname "/$applet")"
	seen[/$applet]="link"
	emit "slink /$applet /bin/busybox 0777 0 0"
done < <("$BUSYBOX" --list-full | sort)

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$WORK/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$WORK/group"
add_file /etc/passwd "$WORK/passwd" 0644
add_file /etc/group "$WORK/group" 0644

add_file /init "$REPO_ROOT/scripts/vm-init.sh" 0755
add_file /wi/checks/topology "$REPO_ROOT/scripts/vm-topology.sh" 0755

add_exes "$SELFTESTS" /selftests
for e in "${EXTRA[@]}"; do
	[[ $e == *:/* ]] || die "--extra wants SRC:/GUEST/DIR, got '$e'"
	add_exes "${e%%:*}" "${e#*:}"
done

# --- archive ----------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
"$GEN" -t 0 "$LIST" | gzip -n -6 >"$WORK/out.cpio.gz"
if cmp -s "$WORK/out.cpio.gz" "$OUT"; then
	info "initramfs unchanged: $OUT"
else
	mv "$WORK/out.cpio.gz" "$OUT"
	info "initramfs written: $OUT ($(stat -c %s "$OUT") bytes)"
fi
cp "$LIST" "$OUT.list"
